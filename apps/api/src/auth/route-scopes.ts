import type { ApiScope } from '@agentq/shared';

/**
 * The scope a REST path needs. Runs and schedules need `runs`; approvals `approvals`; servers and
 * catalogs `servers`; knowledge bases `kbs`; Bull Board and `/metrics` `admin`. `/readyz` and the OpenAPI document need
 * any valid token (`undefined`).
 */
export function scopeOfPath(path: string): ApiScope | undefined {
  const pathname = path.split('?')[0] ?? '';
  const rules: Array<[string, ApiScope]> = [
    ['/v1/runs', 'runs'],
    ['/v1/schedules', 'runs'],
    ['/v1/approvals', 'approvals'],
    ['/v1/servers', 'servers'],
    ['/v1/catalog', 'servers'],
    ['/v1/kbs', 'kbs'],
    ['/metrics', 'admin'],
    ['/admin/queues', 'admin'],
  ];
  for (const [prefix, scope] of rules) {
    if (pathname === prefix || pathname.startsWith(`${prefix}/`)) return scope;
  }
  return undefined;
}
