import { silentLogger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { connectMcpServer } from '../connect/connect-mcp-server.js';
import { linkedServer, testDefinition } from '../test-support/linked-server.js';
import { answerElicitation } from './answer-elicitation.js';

// The fields of the conformance suite's SEP-1034 defaults scenario, one of each kind.
const requestedSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30, minimum: 0 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive'], default: 'active' },
    verified: { type: 'boolean', default: true },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a'] },
  },
  required: ['name'],
};

describe('answerElicitation', () => {
  it('declines by default and under decline', () => {
    expect(answerElicitation(undefined, { requestedSchema }).action).toBe('decline');
    expect(answerElicitation('decline', { requestedSchema }).action).toBe('decline');
  });

  it('accepts with every default under accept-defaults', () => {
    expect(answerElicitation('accept-defaults', { mode: 'form', requestedSchema })).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true, tags: ['a'] },
    });
  });

  it('declines when a required field has no default', () => {
    const schema = {
      ...requestedSchema,
      required: ['name', 'email'],
      properties: { ...requestedSchema.properties, email: { type: 'string' } },
    };
    const answer = answerElicitation('accept-defaults', { requestedSchema: schema });
    expect(answer).toMatchObject({ action: 'decline' });
    expect(answer.action === 'decline' && answer.reason).toContain('email');
  });

  it('declines defaults that break the schema they belong to', () => {
    for (const field of [
      { type: 'integer', default: 1.5 },
      { type: 'string', enum: ['x'], default: 'y' },
      { type: 'string', format: 'email', default: 'nobody' },
      { type: 'number', maximum: 3, default: 4 },
      { type: 'boolean', default: 'yes' },
      { type: 'string', oneOf: [{ const: 'a', title: 'A' }], default: 'b' },
    ]) {
      expect(
        answerElicitation('accept-defaults', { requestedSchema: { type: 'object', properties: { field } } }).action,
      ).toBe('decline');
    }
  });

  it('declines URL-mode requests and non-object schemas', () => {
    expect(answerElicitation('accept-defaults', { mode: 'url' }).action).toBe('decline');
    expect(answerElicitation('accept-defaults', { requestedSchema: { type: 'string' } }).action).toBe('decline');
  });
});

describe('a server that elicits during a connection', () => {
  it('gets the policy answer, and the client declares the capability', async () => {
    let capabilities: unknown;
    const linked = linkedServer((server) => {
      server.oninitialized = () => {
        capabilities = server.getClientCapabilities();
      };
    });
    const answers: string[] = [];
    const connection = await connectMcpServer({
      definition: testDefinition({ elicitation: 'accept-defaults' }),
      logger: silentLogger(),
      openTransport: linked.openTransport,
      onElicitation: ({ answer }) => answers.push(answer.action),
    });
    try {
      expect(capabilities).toMatchObject({ elicitation: { form: {} } });
      const result = await linked.server.elicitInput({ mode: 'form', message: 'fill in', requestedSchema } as never);
      expect(result).toMatchObject({ action: 'accept', content: { name: 'John Doe', age: 30 } });
      expect(answers).toEqual(['accept']);
    } finally {
      await connection.close();
    }
  });
});
