/** A Redis URL fit to print: its password, if any, replaced by `***`. */
export function maskRedisUrl(url: string): string {
  return url.replace(/\/\/([^:@/]*):([^@/]+)@/, '//$1:***@');
}
