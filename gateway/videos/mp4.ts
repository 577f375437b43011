/**
 * A small but real MP4 (ISO/IEC 14496-12 and 14496-15): ftyp, moov with one AVC video track, mdat. The
 * frames come from h264.ts (one IDR picture per second, a grey fade), so the file plays in any player
 * and its duration is the job's seconds. The coded picture is tiny and keeps the aspect of the size the
 * job asked for; the track header declares that size, so players scale it up (section 8.3.2: tkhd
 * width and height are the presentation size).
 */
import { idrFrame, H264_PROFILE, pictureParameterSet, sequenceParameterSet } from './h264.ts'

const TIMESCALE = 1000 // milliseconds: every duration in the file is in these units
const FRAME_MS = 1000 // one frame per second keeps the file a few hundred bytes per second

function u8(value: number): Uint8Array {
  return Uint8Array.of(value & 0xff)
}

function u16(value: number): Uint8Array {
  return Uint8Array.of((value >>> 8) & 0xff, value & 0xff)
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, value >>> 0)
  return out
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0))
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.byteLength
  }
  return out
}

function box(type: string, ...payload: Uint8Array[]): Uint8Array {
  const body = concat(payload)
  return concat([u32(body.byteLength + 8), ascii(type), body])
}

function fullBox(type: string, version: number, flags: number, ...payload: Uint8Array[]): Uint8Array {
  return box(type, u8(version), u8(flags >>> 16), u16(flags & 0xffff), ...payload)
}

/** The identity transformation matrix of mvhd and tkhd (16.16 and 2.30 fixed point). */
const MATRIX = concat([0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].map(u32))

/** The coded picture: whole macroblocks, the short side one macroblock, the long side as close to the aspect. */
export function codedSize(width: number, height: number): { width: number; height: number } {
  const long = (ratio: number) => Math.max(16, Math.round((16 * ratio) / 16) * 16)
  return width >= height ? { width: long(width / height), height: 16 } : { width: 16, height: long(height / width) }
}

export interface Mp4Request {
  /** Presentation size in pixels, e.g. 720 by 1280. */
  width: number
  height: number
  seconds: number
}

export function makeMp4({ width, height, seconds }: Mp4Request): Buffer {
  const coded = codedSize(width, height)
  const frames = Math.max(1, Math.round((seconds * 1000) / FRAME_MS))
  const samples = Array.from({ length: frames }, (_, i) => {
    const frame = idrFrame(coded.width, coded.height, 16 + (219 * i) / Math.max(1, frames - 1), i)
    return concat([u32(frame.byteLength), frame]) // length-prefixed, as avcC's lengthSizeMinusOne = 3 says
  })
  const durationMs = frames * FRAME_MS
  const avc1 = sampleEntry(coded)
  const stbl = (chunkOffset: number) =>
    box(
      'stbl',
      fullBox('stsd', 0, 0, u32(1), avc1),
      fullBox('stts', 0, 0, u32(1), u32(frames), u32(FRAME_MS)),
      fullBox('stsc', 0, 0, u32(1), u32(1), u32(frames), u32(1)),
      fullBox('stsz', 0, 0, u32(0), u32(frames), ...samples.map((s) => u32(s.byteLength))),
      fullBox('stco', 0, 0, u32(1), u32(chunkOffset)),
    )
  const moov = (chunkOffset: number) => movieBox({ width, height }, durationMs, stbl(chunkOffset))
  const ftyp = box('ftyp', ascii('isom'), u32(0x200), ascii('isom'), ascii('iso2'), ascii('avc1'), ascii('mp41'))
  // The chunk offset is a fixed-width field, so the moov box has the same length whatever it holds.
  const offset = ftyp.byteLength + moov(0).byteLength + 8
  return Buffer.from(concat([ftyp, moov(offset), box('mdat', ...samples)]))
}

/** The avc1 sample entry of the coded picture, with its parameter sets in avcC. */
function sampleEntry(coded: { width: number; height: number }): Uint8Array {
  const sps = sequenceParameterSet(coded.width, coded.height)
  const pps = pictureParameterSet()
  const avcC = box(
    'avcC',
    u8(1),
    u8(H264_PROFILE.profileIdc),
    u8(H264_PROFILE.constraintFlags),
    u8(H264_PROFILE.levelIdc),
    u8(0xff),
    u8(0xe1),
    u16(sps.byteLength),
    sps,
    u8(1),
    u16(pps.byteLength),
    pps,
  )
  return box(
    'avc1',
    new Uint8Array(6),
    u16(1),
    new Uint8Array(16),
    u16(coded.width),
    u16(coded.height),
    u32(0x00480000),
    u32(0x00480000),
    u32(0),
    u16(1),
    new Uint8Array(32),
    u16(0x0018),
    u16(0xffff),
    avcC,
  )
}

/** The moov box: the movie header and its one video track of the presentation size, whose samples stbl tables. */
function movieBox(size: { width: number; height: number }, durationMs: number, stbl: Uint8Array): Uint8Array {
  return box(
    'moov',
    fullBox(
      'mvhd',
      0,
      0,
      u32(0),
      u32(0),
      u32(TIMESCALE),
      u32(durationMs),
      u32(0x00010000),
      u16(0x0100),
      new Uint8Array(10),
      MATRIX,
      new Uint8Array(24),
      u32(2),
    ),
    box(
      'trak',
      fullBox(
        'tkhd',
        0,
        3,
        u32(0),
        u32(0),
        u32(1),
        u32(0),
        u32(durationMs),
        new Uint8Array(8),
        u16(0),
        u16(0),
        u16(0),
        u16(0),
        MATRIX,
        u32(size.width * 65536),
        u32(size.height * 65536),
      ),
      box(
        'mdia',
        fullBox('mdhd', 0, 0, u32(0), u32(0), u32(TIMESCALE), u32(durationMs), u16(0x55c4), u16(0)), // language und
        fullBox('hdlr', 0, 0, u32(0), ascii('vide'), new Uint8Array(12), ascii('VideoHandler\0')),
        box(
          'minf',
          fullBox('vmhd', 0, 1, u16(0), u16(0), u16(0), u16(0)),
          box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1))),
          stbl,
        ),
      ),
    ),
  )
}
