/**
 * The other speech formats of Part 2 §4.2, each in its real container, written here in a few lines each so
 * that the gateway needs no codec dependency (and stays deterministic):
 *
 * - flac: fLaC, STREAMINFO, then frames with VERBATIM subframes: the tone's samples, losslessly, with the
 *   frame CRC-8 and CRC-16 a decoder checks;
 * - mp3, opus, aac: valid, decodable frames of silence (MPEG-2 Layer III at 8 kbps; Opus "silence" packets in
 *   Ogg pages with OpusHead and OpusTags; AAC-LC in ADTS with max_sfb 0), as many as the duration needs. A real
 *   codec would be hundreds of lines each; what a client can check without one is the container and the length.
 */
import { SetupError } from '../errors.ts'

// --- checksums -------------------------------------------------------------------------------------------

function crcTable(poly: number, width: 8 | 16): Uint32Array {
  const top = 2 ** (width - 1)
  const mask = 2 ** width - 1
  const table = new Uint32Array(256)
  for (let byte = 0; byte < 256; byte += 1) {
    let crc = byte * 2 ** (width - 8)
    for (let bit = 0; bit < 8; bit += 1) crc = crc >= top ? ((crc * 2) ^ poly) & mask : (crc * 2) & mask
    table[byte] = crc >>> 0
  }
  return table
}

const CRC8 = crcTable(0x07, 8)
const CRC16 = crcTable(0x8005, 16)
const CRC32_OGG = (() => {
  // 32 bits do not fit the generic table's arithmetic (JS bit operators are signed 32-bit): unsigned shifts here.
  const table = new Uint32Array(256)
  for (let byte = 0; byte < 256; byte += 1) {
    let crc = (byte << 24) >>> 0
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x80000000 ? ((crc << 1) ^ 0x04c11db7) >>> 0 : (crc << 1) >>> 0
    table[byte] = crc
  }
  return table
})()

function crc8(bytes: Uint8Array): number {
  let crc = 0
  for (const b of bytes) crc = CRC8[crc ^ b] as number
  return crc
}

function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ (CRC16[((crc >> 8) ^ b) & 0xff] as number)
  return crc
}

function crc32Ogg(bytes: Uint8Array): number {
  let crc = 0
  for (const b of bytes) crc = ((crc << 8) ^ (CRC32_OGG[((crc >>> 24) ^ b) & 0xff] as number)) >>> 0
  return crc >>> 0
}

// --- FLAC ------------------------------------------------------------------------------------------------

const FLAC_BLOCK = 4096
const FLAC_RATE_CODES: Readonly<Record<number, number>> = {
  8000: 4,
  16000: 5,
  22050: 6,
  24000: 7,
  32000: 8,
  44100: 9,
  48000: 10,
  96000: 11,
}

/** The "UTF-8" coding FLAC uses for frame numbers. */
function flacNumber(n: number): number[] {
  if (n < 0x80) return [n]
  if (n < 0x800) return [0xc0 | (n >> 6), 0x80 | (n & 0x3f)]
  if (n < 0x10000) return [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)]
  return [0xf0 | (n >> 18), 0x80 | ((n >> 12) & 0x3f), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)]
}

/** Mono 16-bit samples (little-endian, as WAV holds them) as a FLAC stream. */
export function flacFile(samples: Buffer, sampleRate: number): Buffer {
  const rateCode = FLAC_RATE_CODES[sampleRate]
  if (rateCode === undefined) throw new SetupError('INTERNAL', `no FLAC rate code for ${sampleRate} Hz`)
  const total = samples.length / 2
  const info = Buffer.alloc(34)
  info.writeUInt16BE(FLAC_BLOCK, 0)
  info.writeUInt16BE(FLAC_BLOCK, 2)
  // min and max frame size (6 bytes) stay 0: unknown, which the format allows. Then 64 bits: rate (20),
  // channels - 1 (3), bits per sample - 1 (5), total samples (36). The MD5 (16 bytes) stays 0: not computed.
  const packed = (BigInt(sampleRate) << 44n) | (0n << 41n) | (15n << 36n) | BigInt(total)
  info.writeBigUInt64BE(packed, 10)
  const parts: Buffer[] = [Buffer.from('fLaC', 'ascii'), Buffer.from([0x80, 0, 0, 34]), info]
  for (let frame = 0, start = 0; start < total; frame += 1, start += FLAC_BLOCK) {
    const size = Math.min(FLAC_BLOCK, total - start)
    const head = Buffer.from([
      0xff,
      0xf8,
      (7 << 4) | rateCode,
      0x08,
      ...flacNumber(frame),
      ((size - 1) >> 8) & 0xff,
      (size - 1) & 0xff,
    ])
    const body = Buffer.alloc(1 + size * 2)
    body[0] = 0x02 // VERBATIM subframe, no wasted bits
    for (let i = 0; i < size; i += 1) body.writeInt16BE(samples.readInt16LE((start + i) * 2), 1 + i * 2)
    const frameBytes = Buffer.concat([head, Buffer.from([crc8(head)]), body])
    const footer = Buffer.alloc(2)
    footer.writeUInt16BE(crc16(frameBytes))
    parts.push(frameBytes, footer)
  }
  return Buffer.concat(parts)
}

// --- MP3 -------------------------------------------------------------------------------------------------

/** MPEG-2 Layer III, 8 kbps, 24 kHz, mono, no CRC: 24-byte frames of 576 samples. */
const MP3_FRAME = Buffer.concat([Buffer.from([0xff, 0xf3, 0x14, 0xc0]), Buffer.alloc(20)])
const MP3_FRAME_SAMPLES = 576
export const MP3_SAMPLE_RATE = 24_000

export function mp3File(seconds: number): Buffer {
  const frames = Math.max(1, Math.ceil((seconds * MP3_SAMPLE_RATE) / MP3_FRAME_SAMPLES))
  return Buffer.concat(Array.from({ length: frames }, () => MP3_FRAME))
}

// --- AAC in ADTS -----------------------------------------------------------------------------------------

/** raw_data_block: one SCE, global_gain 100, ONLY_LONG window, max_sfb 0 (all coefficients zero), END. */
// Bits: SCE 000, tag 0000, global_gain 01100100, ics_info 0 00 0 000000 0, pulse/tns/gain control 0 0 0, END 111.
const AAC_SILENT_BLOCK = Buffer.from([0x00, 0xc8, 0x00, 0x07])
const AAC_FRAME_SAMPLES = 1024
const ADTS_RATE_INDEX: Readonly<Record<number, number>> = { 48000: 3, 44100: 4, 32000: 5, 24000: 6, 22050: 7, 16000: 8 }

function adtsFrame(sampleRate: number): Buffer {
  const length = 7 + AAC_SILENT_BLOCK.length
  const rate = ADTS_RATE_INDEX[sampleRate] as number
  const head = Buffer.from([
    0xff,
    0xf1, // sync, MPEG-4, layer 0, no CRC
    (1 << 6) | (rate << 2), // profile AAC LC, rate index, private 0, channel config high bit 0
    (1 << 6) | ((length >> 11) & 0x03), // channel config 1 (mono), frame length high bits
    (length >> 3) & 0xff,
    ((length & 0x07) << 5) | 0x1f, // buffer fullness 0x7FF: variable bit rate
    0xfc, // fullness low bits, one raw data block
  ])
  return Buffer.concat([head, AAC_SILENT_BLOCK])
}

export function aacFile(seconds: number, sampleRate: number): Buffer {
  const frames = Math.max(1, Math.ceil((seconds * sampleRate) / AAC_FRAME_SAMPLES))
  const frame = adtsFrame(sampleRate)
  return Buffer.concat(Array.from({ length: frames }, () => frame))
}

// --- Opus in Ogg -----------------------------------------------------------------------------------------

const OPUS_SILENCE = Buffer.from([0xf8, 0xff, 0xfe]) // CELT-only fullband 20 ms frame of silence
const OPUS_PACKET_SAMPLES = 960 // 20 ms at 48 kHz, the rate Ogg Opus granules count in
const OPUS_PRE_SKIP = 312
const PACKETS_PER_PAGE = 50
const OGG_SERIAL = 0x67636f70 // "gcop": any fixed value keeps the output deterministic

function oggPage(packets: Buffer[], granule: bigint, sequence: number, flags: number): Buffer {
  const segments = packets.flatMap((p) => {
    const lacing = Array<number>(Math.floor(p.length / 255)).fill(255)
    return [...lacing, p.length % 255]
  })
  const head = Buffer.alloc(27)
  head.write('OggS', 0, 'ascii')
  head[4] = 0
  head[5] = flags
  head.writeBigInt64LE(granule, 6)
  head.writeUInt32LE(OGG_SERIAL, 14)
  head.writeUInt32LE(sequence, 18)
  head[26] = segments.length
  const page = Buffer.concat([head, Buffer.from(segments), ...packets])
  page.writeUInt32LE(crc32Ogg(page), 22)
  return page
}

export function opusFile(seconds: number, inputSampleRate: number): Buffer {
  const opusHead = Buffer.alloc(19)
  opusHead.write('OpusHead', 0, 'ascii')
  opusHead[8] = 1 // version
  opusHead[9] = 1 // mono
  opusHead.writeUInt16LE(OPUS_PRE_SKIP, 10)
  opusHead.writeUInt32LE(inputSampleRate, 12)
  const vendor = Buffer.from('gateway-conformance', 'ascii')
  const opusTags = Buffer.concat([Buffer.from('OpusTags', 'ascii'), u32(vendor.length), vendor, u32(0)])
  const samples = Math.max(1, Math.round(seconds * 48_000))
  const packets = Math.ceil((samples + OPUS_PRE_SKIP) / OPUS_PACKET_SAMPLES)
  const pages = [oggPage([opusHead], 0n, 0, 0x02), oggPage([opusTags], 0n, 1, 0)]
  for (let first = 0, seq = 2; first < packets; first += PACKETS_PER_PAGE, seq += 1) {
    const count = Math.min(PACKETS_PER_PAGE, packets - first)
    const last = first + count >= packets
    const granule = last ? OPUS_PRE_SKIP + samples : (first + count) * OPUS_PACKET_SAMPLES
    pages.push(
      oggPage(
        Array.from({ length: count }, () => OPUS_SILENCE),
        BigInt(granule),
        seq,
        last ? 0x04 : 0,
      ),
    )
  }
  return Buffer.concat(pages)
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeUInt32LE(n)
  return b
}
