/**
 * Is a body an MP4 file? ISO/IEC 14496-12 section 4.2: a file is a sequence of boxes, each a 32-bit size (1: a
 * 64-bit size follows the type; 0: to the end of the file) and a four-character type. An MP4 starts with ftyp,
 * and a playable one has moov (the track structure) and mdat (the media data) at its top level. This reads the
 * top level only, and says what is wrong rather than merely no.
 */

interface BoxSummary {
  type: string
  offset: number
  size: number
}

interface Mp4Verdict {
  problems: string[]
  boxes: BoxSummary[]
  /** The major brand of ftyp, e.g. isom or mp42, when there is one. */
  majorBrand?: string
}

const PRINTABLE_TYPE = /^[\x20-\x7e]{4}$/

export function checkMp4(bytes: Buffer): Mp4Verdict {
  const boxes: BoxSummary[] = []
  const problems: string[] = []
  let offset = 0
  while (offset < bytes.length) {
    if (bytes.length - offset < 8) {
      problems.push(`${bytes.length - offset} stray bytes at ${offset}, too few for a box header`)
      break
    }
    let size = bytes.readUInt32BE(offset)
    const type = bytes.toString('latin1', offset + 4, offset + 8)
    let header = 8
    if (size === 1) {
      if (bytes.length - offset < 16) {
        problems.push(`box ${JSON.stringify(type)} at ${offset} announces a 64-bit size that is not there`)
        break
      }
      size = Number(bytes.readBigUInt64BE(offset + 8))
      header = 16
    } else if (size === 0) {
      size = bytes.length - offset
    }
    if (!PRINTABLE_TYPE.test(type)) {
      problems.push(`bytes at ${offset} are not a box: type ${JSON.stringify(type)}`)
      break
    }
    if (size < header || offset + size > bytes.length) {
      problems.push(`box ${type} at ${offset} has size ${size}, but ${bytes.length - offset} bytes are left`)
      break
    }
    boxes.push({ type, offset, size })
    offset += size
  }
  if (bytes.length === 0) problems.push('the body is empty')
  else if (boxes[0]?.type !== 'ftyp')
    problems.push(`the first box is ${boxes[0] ? boxes[0].type : 'missing'}, not ftyp`)
  for (const required of ['moov', 'mdat']) {
    if (!boxes.some((box) => box.type === required)) problems.push(`no top-level ${required} box`)
  }
  const ftyp = boxes[0]?.type === 'ftyp' ? boxes[0] : undefined
  const majorBrand = ftyp && ftyp.size >= 12 ? bytes.toString('latin1', ftyp.offset + 8, ftyp.offset + 12) : undefined
  return { problems, boxes, ...(majorBrand === undefined ? {} : { majorBrand }) }
}

export function describeBoxes(verdict: Mp4Verdict): string {
  return verdict.boxes.map((box) => `${box.type}(${box.size})`).join(' ') || 'no boxes'
}

/**
 * The container a body's first bytes name, where they name a video container (ISO base media: MP4, MOV, 3GP;
 * Matroska and WebM; AVI; Ogg; MPEG transport stream), else undefined: a message is none of these.
 */
export function videoContainer(bytes: Buffer): string | undefined {
  const at = (start: number, end: number): string => bytes.toString('latin1', start, end)
  if (bytes.length >= 8 && ['ftyp', 'moov', 'mdat'].includes(at(4, 8))) return 'ISO base media (MP4)'
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === 0x1a45dfa3) return 'Matroska/WebM'
  if (bytes.length >= 12 && at(0, 4) === 'RIFF' && at(8, 12) === 'AVI ') return 'AVI'
  if (bytes.length >= 4 && at(0, 4) === 'OggS') return 'Ogg'
  if (bytes.length > 188 && bytes[0] === 0x47 && bytes[188] === 0x47) return 'MPEG transport stream'
  return undefined
}

/** The boxes directly inside a box's payload (or a whole file), as [type, payload start, payload end]. */
function children(bytes: Buffer, start: number, end: number): Array<[string, number, number]> {
  const out: Array<[string, number, number]> = []
  let offset = start
  while (end - offset >= 8) {
    let size = bytes.readUInt32BE(offset)
    let header = 8
    if (size === 1 && end - offset >= 16) {
      size = Number(bytes.readBigUInt64BE(offset + 8))
      header = 16
    } else if (size === 0) size = end - offset
    if (size < header || offset + size > end) break
    out.push([bytes.toString('latin1', offset + 4, offset + 8), offset + header, offset + size])
    offset += size
  }
  return out
}

/**
 * What an MP4 presents (ISO/IEC 14496-12 8.2.2 mvhd, 8.3.2 tkhd): the movie's duration in seconds, and the width and
 * height of its first track that has a picture (16.16 fixed point). Fields the file lacks are absent.
 */
export function mp4Presentation(bytes: Buffer): { seconds?: number; width?: number; height?: number } {
  const moov = children(bytes, 0, bytes.length).find(([type]) => type === 'moov')
  if (moov === undefined) return {}
  const inMoov = children(bytes, moov[1], moov[2])
  const out: { seconds?: number; width?: number; height?: number } = {}
  const mvhd = inMoov.find(([type]) => type === 'mvhd')
  if (mvhd !== undefined && mvhd[2] - mvhd[1] >= 32) {
    const v1 = bytes[mvhd[1]] === 1
    const timescale = bytes.readUInt32BE(mvhd[1] + (v1 ? 20 : 12))
    const duration = v1 ? Number(bytes.readBigUInt64BE(mvhd[1] + 24)) : bytes.readUInt32BE(mvhd[1] + 16)
    if (timescale > 0) out.seconds = duration / timescale
  }
  for (const [type, start, end] of inMoov) {
    if (type !== 'trak') continue
    const tkhd = children(bytes, start, end).find(([t]) => t === 'tkhd')
    if (tkhd === undefined) continue
    const at = tkhd[1] + (bytes[tkhd[1]] === 1 ? 88 : 76)
    if (at + 8 > tkhd[2]) continue
    const width = bytes.readUInt32BE(at) / 65536
    const height = bytes.readUInt32BE(at + 4) / 65536
    if (width > 0 && height > 0) return { ...out, width, height }
  }
  return out
}
