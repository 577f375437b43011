/**
 * Reference images for input_reference (Part 2 §4.1: JPEG, PNG or WebP, "keep close to the target size"): real
 * files of the default size 720x1280, made here rather than shipped, plus two things that are not such images.
 *
 * - PNG: RGB, one colour, rows deflated with zlib (PNG specification, chunks IHDR, IDAT, IEND with CRC-32).
 * - JPEG: baseline, one grey component at 128, so that every 8x8 block is a zero DC difference and an end of
 *   block: two one-bit Huffman codes per block (ITU-T T.81, the smallest honest encoder).
 * - WebP: a lossless (VP8L) picture of one colour, 86 bytes, as written by ffmpeg's libwebp encoder
 *   (`ffmpeg -f lavfi -i color=c=0x3060a0:s=720x1280 -frames:v 1 -c:v libwebp -lossless 1`).
 * - GIF: the classic 1x1 GIF89a, a real image of a type §4.1 does not list.
 */
import { crc32, deflateSync } from 'node:zlib'
import type { FilePart } from '../../harness/worker/multipart.ts'

const REFERENCE_SIZE = { width: 720, height: 1280 } as const

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(typed))
  return Buffer.concat([length, typed, crc])
}

export function png(
  width: number = REFERENCE_SIZE.width,
  height: number = REFERENCE_SIZE.height,
  rgb: readonly [number, number, number] = [0x30, 0x60, 0xa0],
): Buffer {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8 bits, RGB, deflate, adaptive filtering, no interlace
  const row = Buffer.alloc(1 + width * 3) // filter type 0, then the pixels
  for (let x = 0; x < width; x += 1) row.set(rgb, 1 + x * 3)
  const raw = Buffer.concat(Array.from({ length: height }, () => row))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

function segment(marker: number, payload: readonly number[]): number[] {
  const length = payload.length + 2
  return [0xff, marker, length >> 8, length & 0xff, ...payload]
}

export function jpeg(width: number = REFERENCE_SIZE.width, height: number = REFERENCE_SIZE.height): Buffer {
  if (width % 8 !== 0 || height % 8 !== 0) throw new RangeError('whole 8x8 blocks only')
  const bytes: number[] = [0xff, 0xd8] // SOI
  bytes.push(...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0])) // APP0 JFIF 1.01
  bytes.push(...segment(0xdb, [0, ...new Array<number>(64).fill(1)])) // DQT 0: all ones
  bytes.push(...segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0])) // SOF0, one component
  // DHT: DC table 0 and AC table 0, each one code of length 1 ("0"): DC category 0, AC end of block.
  bytes.push(...segment(0xc4, [0x00, 1, ...new Array<number>(15).fill(0), 0x00]))
  bytes.push(...segment(0xc4, [0x10, 1, ...new Array<number>(15).fill(0), 0x00]))
  bytes.push(...segment(0xda, [1, 1, 0x00, 0, 63, 0])) // SOS
  const blocks = (width / 8) * (height / 8)
  const bits = blocks * 2 // "0" (DC difference 0) and "0" (end of block) per block
  const data = new Array<number>(Math.ceil(bits / 8)).fill(0)
  if (bits % 8 !== 0) data[data.length - 1] = (1 << (8 - (bits % 8))) - 1 // pad the last byte with ones
  bytes.push(...data, 0xff, 0xd9) // EOI
  return Buffer.from(bytes)
}

const WEBP_720X1280 =
  'UklGRk4AAABXRUJQVlA4TEEAAAAvz8I/AQdQsL70s/8BBW3bMOUPvzuO6H+G//znP//5z3/+85///Oc///nPf/7zn//85z//+c9//vOf//znP/+rAQA='

export function webp(): Buffer {
  return Buffer.from(WEBP_720X1280, 'base64')
}

export function gif(): Buffer {
  return Buffer.from(
    '474946383961010001008000 00ffffff0000002c00000000010001000002024401003b'.replace(/\s/g, ''),
    'hex',
  )
}

/** The three image types §4.1 lists, as input_reference parts. */
export function referenceImages(): Array<{ type: string; part: FilePart }> {
  return [
    { type: 'JPEG', part: { filename: 'reference.jpg', contentType: 'image/jpeg', content: jpeg() } },
    { type: 'PNG', part: { filename: 'reference.png', contentType: 'image/png', content: png() } },
    { type: 'WebP', part: { filename: 'reference.webp', contentType: 'image/webp', content: webp() } },
  ]
}

/** Files that are not JPEG, PNG or WebP, each declared as an image type §4.1 allows, so only the bytes tell. */
export function notReferenceImages(): Array<{ type: string; part: FilePart }> {
  return [
    { type: 'GIF', part: { filename: 'reference.gif', contentType: 'image/gif', content: gif() } },
    {
      type: 'text declared as image/png',
      part: { filename: 'reference.png', contentType: 'image/png', content: 'this is not an image\n' },
    },
  ]
}
