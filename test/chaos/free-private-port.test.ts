import { describe, expect, it } from 'vitest';
import { freePrivatePort } from './chaos-fleet.js';

// A chaos run asks for Redis's port and then the API's before either binds: each call must give a
// port the earlier ones did not (the API once failed with PORT_IN_USE on its own Redis's port).
describe('freePrivatePort', () => {
  it('never hands out a port it handed out a moment ago', async () => {
    const ports: number[] = [];
    for (let index = 0; index < 50; index += 1) ports.push(await freePrivatePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port >= 7200 && port <= 7299).toBe(true);
  });
});
