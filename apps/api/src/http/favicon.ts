/**
 * The 16×16 favicon of the API as an ICO file (one 32-bit BMP image): a dark tile with a light
 * ring, the house colours of the admin pages. Built in code so no binary file ships.
 */
export function buildFavicon(): Buffer {
  const size = 16;
  const pixelBytes = size * size * 4;
  const maskBytes = size * 4; // 1 bit per pixel, rows padded to 4 bytes
  const imageBytes = 40 + pixelBytes + maskBytes;
  const icon = Buffer.alloc(6 + 16 + imageBytes);
  icon.writeUInt16LE(0, 0); // reserved
  icon.writeUInt16LE(1, 2); // type: icon
  icon.writeUInt16LE(1, 4); // one image
  icon.writeUInt8(size, 6);
  icon.writeUInt8(size, 7);
  icon.writeUInt16LE(1, 10); // colour planes
  icon.writeUInt16LE(32, 12); // bits per pixel
  icon.writeUInt32LE(imageBytes, 14);
  icon.writeUInt32LE(22, 18); // offset of the image
  const header = 22;
  icon.writeUInt32LE(40, header);
  icon.writeInt32LE(size, header + 4);
  icon.writeInt32LE(size * 2, header + 8); // XOR and AND bitmaps together
  icon.writeUInt16LE(1, header + 12);
  icon.writeUInt16LE(32, header + 14);
  icon.writeUInt32LE(pixelBytes + maskBytes, header + 20);
  const center = (size - 1) / 2;
  for (let row = 0; row < size; row += 1) {
    for (let column = 0; column < size; column += 1) {
      const distance = Math.hypot(row - center, column - center);
      const ring = distance > 3.2 && distance < 5.6;
      // BGRA, bottom-up rows
      const offset = header + 40 + ((size - 1 - row) * size + column) * 4;
      icon.set(ring ? [0xff, 0xe3, 0xcf, 0xff] : [0x2a, 0x23, 0x1d, 0xff], offset);
    }
  }
  return icon;
}
