import type { AgentqClient } from '@agentq/client';
import { describe, expect, it } from 'vitest';
import { apiRoutes } from '../build-api.js';
import { buildOpenApiDocument } from './build-openapi-document.js';

describe('buildOpenApiDocument', () => {
  const document = buildOpenApiDocument(apiRoutes({} as AgentqClient), { version: '1.2.3' }) as {
    openapi: string;
    paths: Record<
      string,
      Record<
        string,
        { parameters: Array<{ name: string; in: string }>; requestBody?: unknown; responses: Record<string, unknown> }
      >
    >;
  };

  it('is an OpenAPI 3.1 document with every route', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toContain('/v1/approvals/{approvalId}/decision');
    expect(Object.keys(document.paths['/v1/runs'] ?? {})).toEqual(['post']);
  });

  it('lists the scope each operation declares', () => {
    const security = (path: string, method: string) =>
      (document.paths[path]?.[method] as unknown as { security: unknown }).security;
    expect(security('/v1/approvals/{approvalId}/decision', 'post')).toEqual([{ bearerAuth: ['approvals'] }]);
    expect(security('/v1/runs', 'post')).toEqual([{ bearerAuth: ['runs'] }]);
    expect(security('/v1/kbs', 'get')).toEqual([{ bearerAuth: ['kbs'] }]);
    expect(security('/v1/catalog/{serverId}', 'get')).toEqual([{ bearerAuth: ['servers'] }]);
  });

  it('documents path parameters, JSON bodies from the zod schemas, and error responses', () => {
    const decide = document.paths['/v1/approvals/{approvalId}/decision']?.post;
    expect(decide?.parameters).toEqual([expect.objectContaining({ name: 'approvalId', in: 'path', required: true })]);
    const body = decide?.requestBody as {
      content: { 'application/json': { schema: { properties: Record<string, unknown>; required: string[] } } };
    };
    // No decidedBy: the token that authenticated is who decided.
    expect(Object.keys(body.content['application/json'].schema.properties)).toEqual(['approved', 'reason']);
    expect(body.content['application/json'].schema.required).toEqual(['approved']);
    expect(Object.keys(decide?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '409', '410']),
    );
    const enqueue = document.paths['/v1/runs']?.post?.requestBody as {
      content: { 'application/json': { schema: { properties: { spec: { properties: Record<string, unknown> } } } } };
    };
    expect(Object.keys(enqueue.content['application/json'].schema.properties.spec.properties)).toEqual(
      expect.arrayContaining(['assistant', 'input', 'approval']),
    );
  });

  it('lists the error statuses the server answers by the shape of each route', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const statuses = Object.keys(operation.responses);
        const where = `${method.toUpperCase()} ${path}`;
        expect(statuses, where).toEqual(expect.arrayContaining(['401', '403', '503']));
        const inPath = operation.parameters.some((parameter) => parameter.in === 'path');
        if (operation.parameters.length > 0 || operation.requestBody) expect(statuses, where).toContain('400');
        if (inPath) expect(statuses, where).toContain('414');
        if (operation.requestBody) expect(statuses, where).toEqual(expect.arrayContaining(['413', '415']));
      }
    }
    expect(Object.keys(document.paths['/v1/runs/{runId}']?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(['400', '414']),
    );
  });
});
