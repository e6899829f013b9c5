import { digestOf, type ApprovalJob } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { mismatchWithDecidedRequest, type GatedCall } from './match-decided-request.js';

const seen = { path: '/tmp/report.txt', options: { mode: 'append' } };

/** What the person was shown. */
const request: ApprovalJob = {
  approvalId: 'appr-1',
  runId: 'run-1',
  incarnation: 'incarnation-1',
  toolCallId: 'call_0_0',
  toolName: 'mcp__fs__write',
  serverId: 'fs',
  input: seen,
  argsDigest: digestOf(seen),
  schemaDigest: 'schema-1',
  requestedAt: 0,
  expiresAt: 1,
};

/** The call as it is about to execute. */
const call: GatedCall = {
  runId: 'run-1',
  incarnation: 'incarnation-1',
  toolCallId: 'call_0_0',
  toolName: 'mcp__fs__write',
  serverId: 'fs',
  // Key order does not matter: the digest is of canonical JSON.
  input: { options: { mode: 'append' }, path: '/tmp/report.txt' },
  schemaDigest: 'schema-1',
};

describe('mismatchWithDecidedRequest', () => {
  it('lets through exactly the call the person saw', () => {
    expect(mismatchWithDecidedRequest({ request, call })).toBeNull();
  });

  it.each([
    ['another incarnation of the run', { incarnation: 'incarnation-2' }, /another run/],
    ['another run', { runId: 'run-2' }, /another run/],
    ['another tool call', { toolCallId: 'call_0_1' }, /another tool call/],
    ['another tool', { toolName: 'mcp__fs__delete' }, /not for mcp__fs__delete/],
    ['another server', { serverId: 'fs2' }, /another server/],
    ['a builtin where a server tool was approved', { serverId: undefined }, /another server/],
    ['other arguments', { input: { path: '/etc/passwd', options: { mode: 'append' } } }, /arguments/],
    ['no arguments', { input: undefined }, /arguments/],
    ['a changed schema', { schemaDigest: 'schema-2' }, /schema/],
    ['a tool gone from the catalog', { schemaDigest: undefined }, /no longer in the tool catalog/],
  ] as const)('denies %s, with the reason', (_name, change, reason) => {
    const refusal = mismatchWithDecidedRequest({ request, call: { ...call, ...change } });
    expect(refusal).toMatch(/^Not executed:/);
    expect(refusal).toMatch(reason);
  });

  it('denies when the recorded digest is not the digest of the arguments shown', () => {
    const forged = { ...request, argsDigest: digestOf({ path: '/etc/passwd' }) };
    expect(mismatchWithDecidedRequest({ request: forged, call: { ...call, input: { path: '/etc/passwd' } } })).toMatch(
      /arguments/,
    );
  });

  it('denies a request recorded before approvals were bound to a run incarnation', () => {
    const { incarnation: _none, ...legacy } = request;
    expect(mismatchWithDecidedRequest({ request: legacy, call })).toMatch(/^Not executed:.*ask again/);
  });
});
