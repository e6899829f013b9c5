/** Number of hash slots of a Redis Cluster. */
export const HASH_SLOTS = 16_384;

// CRC16/XMODEM (polynomial 0x1021), the checksum Redis Cluster maps keys to slots with.
const table = (() => {
  const out = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte += 1) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    out[byte] = crc;
  }
  return out;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ (table[((crc >> 8) ^ byte) & 0xff] as number);
  return crc;
}

/**
 * The Redis Cluster hash slot of a key: only the text between the first `{` and the next `}` is
 * hashed when that text is not empty (the hash tag), else the whole key.
 */
export function hashSlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(Buffer.from(key, 'utf8')) % HASH_SLOTS;
}
