/**
 * Real audio bytes for the native interface and text:synthesize (Part 2 sections 2.6, 4.8, 4.9). A simulator
 * still answers with audio that a decoder accepts: a quiet tone whose length follows the text, in each
 * container the reference names. Every encoder here writes the container's own signature and lengths, so a
 * client can check the bytes match what was asked (RIFF/WAVE, MPEG frame sync, OggS with OpusHead).
 */

/** Seconds of simulated speech for a text: short enough for fast self-tests, long enough to be audio. */
export function speechSeconds(text: string): number {
  return Math.min(10, 0.3 + [...text].length / 60)
}

/** Mono 16-bit samples of a soft 220 Hz tone with a fade in and out (not silence: a decoder hears something). */
export function toneSamples(seconds: number, sampleRate: number): Int16Array {
  const count = Math.max(1, Math.round(seconds * sampleRate))
  const samples = new Int16Array(count)
  const fade = Math.max(1, Math.round(sampleRate * 0.01))
  for (let i = 0; i < count; i += 1) {
    const envelope = Math.min(1, i / fade, (count - 1 - i) / fade)
    samples[i] = Math.round(Math.sin((2 * Math.PI * 220 * i) / sampleRate) * 3000 * envelope)
  }
  return samples
}

/** Little-endian 16-bit PCM: the byte order the native provider's audio/L16 answers use in practice. */
export function pcm16le(samples: Int16Array): Buffer {
  const out = Buffer.alloc(samples.length * 2)
  samples.forEach((s, i) => {
    out.writeInt16LE(s, i * 2)
  })
  return out
}

/** WAVE format codes: 1 PCM, 6 A-law, 7 mu-law. */
export type WavFormat = 1 | 6 | 7

/** A RIFF/WAVE file around sample data; mu-law and A-law carry 8-bit samples, PCM 16-bit. */
export function wav(data: Buffer, sampleRate: number, format: WavFormat = 1): Buffer {
  const bitsPerSample = format === 1 ? 16 : 8
  const blockAlign = bitsPerSample / 8
  const header = Buffer.alloc(44)
  header.write('RIFF', 0, 'ascii')
  header.writeUInt32LE(36 + data.length, 4)
  header.write('WAVE', 8, 'ascii')
  header.write('fmt ', 12, 'ascii')
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(format, 20)
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(sampleRate, 24)
  header.writeUInt32LE(sampleRate * blockAlign, 28)
  header.writeUInt16LE(blockAlign, 32)
  header.writeUInt16LE(bitsPerSample, 34)
  header.write('data', 36, 'ascii')
  header.writeUInt32LE(data.length, 40)
  return Buffer.concat([header, data])
}

/** G.711 mu-law of one 16-bit sample. */
function muLaw(sample: number): number {
  const BIAS = 0x84
  const sign = sample < 0 ? 0x80 : 0
  const magnitude = Math.min(Math.abs(sample), 32_635) + BIAS
  let exponent = 7
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f
  return ~(sign | (exponent << 4) | mantissa) & 0xff
}

/** G.711 A-law of one 16-bit sample. */
function aLaw(sample: number): number {
  const sign = sample >= 0 ? 0x80 : 0
  const magnitude = Math.min(Math.abs(sample), 32_767) >> 3
  let exponent = 0
  for (let m = magnitude >> 4; m > 1 && exponent < 7; m >>= 1) exponent += 1
  const mantissa = exponent === 0 ? (magnitude >> 1) & 0x0f : (magnitude >> exponent) & 0x0f
  return (sign | (exponent << 4) | mantissa) ^ 0x55
}

export function g711(samples: Int16Array, law: 'mulaw' | 'alaw'): Buffer {
  const encode = law === 'mulaw' ? muLaw : aLaw
  return Buffer.from(Array.from(samples, encode))
}

/**
 * MPEG-2 Layer III frames at 24 kHz, 64 kbit/s, mono, each a header and zeroed side information and main
 * data: the silent frame every decoder accepts. 576 samples (24 ms) per frame.
 */
export function mp3(seconds: number): Buffer {
  const frameBytes = (72 * 64_000) / 24_000 // 192, no padding
  const frames = Math.max(1, Math.ceil((seconds * 24_000) / 576))
  const frame = Buffer.alloc(frameBytes)
  // sync, MPEG-2, Layer III, no CRC | 64 kbit/s, 24000 Hz, no padding | mono, original
  frame.set([0xff, 0xf3, 0x84, 0xc4], 0)
  return Buffer.concat(Array.from({ length: frames }, () => frame))
}

const OGG_CRC = (() => {
  const table = new Uint32Array(256)
  for (let i = 0; i < 256; i += 1) {
    let r = i << 24
    for (let j = 0; j < 8; j += 1) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1
    table[i] = r >>> 0
  }
  return table
})()

function oggCrc(bytes: Buffer): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) ^ (OGG_CRC[((crc >>> 24) ^ byte) & 0xff] as number)) >>> 0
  return crc
}

/** One Ogg page holding whole packets (each under 255 bytes here, so one lacing value per packet). */
function oggPage(packets: Buffer[], headerType: number, granule: bigint, serial: number, sequence: number): Buffer {
  const lacing = packets.map((p) => p.length)
  const header = Buffer.alloc(27 + lacing.length)
  header.write('OggS', 0, 'ascii')
  header.writeUInt8(0, 4)
  header.writeUInt8(headerType, 5)
  header.writeBigInt64LE(granule, 6)
  header.writeUInt32LE(serial, 14)
  header.writeUInt32LE(sequence, 18)
  header.writeUInt32LE(0, 22)
  header.writeUInt8(lacing.length, 26)
  lacing.forEach((l, i) => {
    header.writeUInt8(l, 27 + i)
  })
  const page = Buffer.concat([header, ...packets])
  page.writeUInt32LE(oggCrc(page), 22)
  return page
}

/** Ogg Opus (RFC 7845): OpusHead, OpusTags, then 20 ms silent CELT packets, 48 kHz granule positions. */
/** The rate of the encodings whose rate is automatic (MP3, OGG_OPUS): what they are made at and echo. */
export const AUTOMATIC_RATE = 24_000

export function oggOpus(seconds: number, inputRate = 24_000): Buffer {
  const serial = 0x6763_6e76
  const head = Buffer.alloc(19)
  head.write('OpusHead', 0, 'ascii')
  head.writeUInt8(1, 8) // version
  head.writeUInt8(1, 9) // mono
  head.writeUInt16LE(312, 10) // pre-skip
  head.writeUInt32LE(inputRate, 12)
  head.writeInt16LE(0, 16)
  head.writeUInt8(0, 18)
  const vendor = Buffer.from('gateway-conformance', 'ascii')
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4)
  tags.write('OpusTags', 0, 'ascii')
  tags.writeUInt32LE(vendor.length, 8)
  vendor.copy(tags, 12)
  tags.writeUInt32LE(0, 12 + vendor.length)
  const packets = Math.max(1, Math.ceil(seconds / 0.02))
  const silence = Buffer.from([0xf8, 0xff, 0xfe]) // TOC: CELT fullband 20 ms, mono, one frame
  const pages = [oggPage([head], 0x02, 0n, serial, 0), oggPage([tags], 0x00, 0n, serial, 1)]
  for (let sent = 0, sequence = 2; sent < packets; sequence += 1) {
    const count = Math.min(50, packets - sent)
    sent += count
    const last = sent === packets
    pages.push(
      oggPage(
        Array.from({ length: count }, () => silence),
        last ? 0x04 : 0x00,
        BigInt(312 + sent * 960),
        serial,
        sequence,
      ),
    )
  }
  return Buffer.concat(pages)
}
