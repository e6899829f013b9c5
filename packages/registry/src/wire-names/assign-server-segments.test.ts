import { describe, expect, it } from 'vitest';
import { assignServerSegments } from './assign-server-segments.js';

describe('assignServerSegments', () => {
  it('keeps a slug plain when one enabled server has it', () => {
    expect(assignServerSegments(['team-tools', 'gh'])).toEqual(
      new Map([
        ['team-tools', 'teamTools'],
        ['gh', 'gh'],
      ]),
    );
  });

  it('disambiguates every member of a colliding group from its own id, in any order', () => {
    const one = assignServerSegments(['team-tools', 'team_tools', 'gh']);
    const other = assignServerSegments(['gh', 'team_tools', 'team-tools', 'team_tools']);
    expect(one).toEqual(other);
    expect(one.get('gh')).toBe('gh');
    expect(one.get('team-tools')).toMatch(/^teamTools_[0-9a-f]{6}$/);
    expect(one.get('team_tools')).toMatch(/^teamTools_[0-9a-f]{6}$/);
    expect(one.get('team-tools')).not.toBe(one.get('team_tools'));
    // The disambiguator depends on the id only, not on who else is in the group.
    expect(assignServerSegments(['team-tools', 'team--tools']).get('team-tools')).toBe(one.get('team-tools'));
  });
});
