/**
 * What an uploaded audio file is, and how long it lasts (Part 2 §4.3: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav,
 * webm). The extension must be one of the list and the bytes must carry a container signature of the list; the
 * two need not agree (clients name files loosely). The duration is exact where the container says it (WAV
 * header, FLAC STREAMINFO, the last Ogg granule, MPEG audio frames); for MP4 and WebM, whose boxes this gateway
 * does not walk, it is estimated from the size at a nominal 128 kbps.
 */
import { readWavHeader } from './wav.ts'

export const AUDIO_EXTENSIONS = ['flac', 'mp3', 'mp4', 'mpeg', 'mpga', 'm4a', 'ogg', 'wav', 'webm'] as const
export type Container = 'wav' | 'flac' | 'mp3' | 'ogg' | 'mp4' | 'webm'

const NOMINAL_BYTES_PER_SECOND = 16_000

export function extensionOf(filename: string): string {
  const dot = filename.lastIndexOf('.')
  return dot < 0 ? '' : filename.slice(dot + 1).toLowerCase()
}

export function containerOf(bytes: Buffer): Container | undefined {
  const ascii = (from: number, to: number): string => bytes.toString('latin1', from, to)
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'wav'
  if (ascii(0, 4) === 'fLaC') return 'flac'
  if (ascii(0, 4) === 'OggS') return 'ogg'
  if (
    ascii(0, 3) === 'ID3' ||
    (bytes.length >= 2 &&
      bytes[0] === 0xff &&
      ((bytes[1] as number) & 0xe0) === 0xe0 &&
      ((bytes[1] as number) & 0x06) !== 0)
  )
    return 'mp3'
  if (ascii(4, 8) === 'ftyp') return 'mp4'
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x1a45dfa3) return 'webm'
  return undefined
}

/** Seconds of audio in the file, or undefined when its header cannot be read. */
export function durationOf(container: Container, bytes: Buffer): number | undefined {
  switch (container) {
    case 'wav':
      return readWavHeader(bytes)?.durationSeconds
    case 'flac': {
      if (bytes.length < 26) return undefined
      const packed = bytes.readBigUInt64BE(18)
      const rate = Number(packed >> 44n)
      const total = Number(packed & 0xfffffffffn)
      return rate > 0 ? total / rate : undefined
    }
    case 'ogg':
      return oggSeconds(bytes)
    case 'mp3':
      return mpegSeconds(bytes)
    default:
      return bytes.length / NOMINAL_BYTES_PER_SECOND
  }
}

/** The granule of the last page; Opus counts at 48 kHz after a pre-skip, Vorbis at its own rate. */
function oggSeconds(bytes: Buffer): number | undefined {
  const last = bytes.lastIndexOf('OggS', undefined, 'latin1')
  if (last < 0 || last + 14 > bytes.length) return undefined
  const granule = Number(bytes.readBigInt64LE(last + 6))
  const opus = bytes.indexOf('OpusHead', 0, 'latin1')
  if (opus >= 0 && opus + 12 <= bytes.length) return Math.max(0, granule - bytes.readUInt16LE(opus + 10)) / 48_000
  const vorbis = bytes.indexOf('\x01vorbis', 0, 'latin1')
  if (vorbis >= 0 && vorbis + 16 <= bytes.length) return granule / bytes.readUInt32LE(vorbis + 12)
  return bytes.length / NOMINAL_BYTES_PER_SECOND
}

const L3_KBPS = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
const MPEG_RATES: Readonly<Record<number, readonly number[]>> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
}

/** Walks MPEG audio Layer III frames after an optional ID3v2 tag; other layers fall back to the nominal rate. */
function mpegSeconds(bytes: Buffer): number {
  let at = 0
  if (bytes.toString('latin1', 0, 3) === 'ID3' && bytes.length >= 10) {
    at =
      10 +
      (((bytes[6] as number) << 21) | ((bytes[7] as number) << 14) | ((bytes[8] as number) << 7) | (bytes[9] as number))
  }
  let seconds = 0
  let frames = 0
  while (at + 4 <= bytes.length) {
    const b1 = bytes[at + 1] as number
    const b2 = bytes[at + 2] as number
    const version = (b1 >> 3) & 0x03 // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
    const layer = (b1 >> 1) & 0x03 // 1 is Layer III
    if (bytes[at] !== 0xff || (b1 & 0xe0) !== 0xe0 || layer !== 1 || version === 1) break
    const kbps = (version === 3 ? L3_KBPS.v1 : L3_KBPS.v2)[b2 >> 4]
    const rate = MPEG_RATES[version]?.[(b2 >> 2) & 0x03]
    if (!kbps || !rate) break
    const samples = version === 3 ? 1152 : 576
    const length = Math.floor(((samples / 8) * kbps * 1000) / rate) + ((b2 >> 1) & 0x01)
    seconds += samples / rate
    frames += 1
    at += length
  }
  return frames > 0 ? seconds : bytes.length / NOMINAL_BYTES_PER_SECOND
}
