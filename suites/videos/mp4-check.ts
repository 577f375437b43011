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

/** A full box's 32- or 64-bit field (by its version byte) at `v0` or `v1` bytes into the payload. */
function versioned(bytes: Buffer, payload: number, v0: number, v1: number): number {
  return bytes[payload] === 1 ? Number(bytes.readBigUInt64BE(payload + v1)) : bytes.readUInt32BE(payload + v0)
}

/**
 * What an MP4 presents (ISO/IEC 14496-12 8.2.2 mvhd, 8.3.2 tkhd, 8.8.2 mehd): the movie's duration in seconds, and the
 * width and height of its first track that has a picture, as shown. A fragmented file (mvex in moov) whose mvhd
 * gives no duration gives it in mehd, or not at all. tkhd's size is before its matrix: a quarter turn swaps the two.
 * Fields the file lacks are absent.
 */
export function mp4Presentation(bytes: Buffer): { seconds?: number; width?: number; height?: number } {
  const moov = children(bytes, 0, bytes.length).find(([type]) => type === 'moov')
  if (moov === undefined) return {}
  const inMoov = children(bytes, moov[1], moov[2])
  const out: { seconds?: number; width?: number; height?: number } = {}
  const mvhd = inMoov.find(([type]) => type === 'mvhd')
  if (mvhd !== undefined && mvhd[2] - mvhd[1] >= 32) {
    const timescale = bytes.readUInt32BE(mvhd[1] + (bytes[mvhd[1]] === 1 ? 20 : 12))
    let duration = versioned(bytes, mvhd[1], 16, 24)
    const mvex = inMoov.find(([type]) => type === 'mvex')
    if (mvex !== undefined && duration === 0) {
      const mehd = children(bytes, mvex[1], mvex[2]).find(([type]) => type === 'mehd')
      duration = mehd !== undefined && mehd[2] - mehd[1] >= 8 ? versioned(bytes, mehd[1], 4, 4) : 0
    }
    // A duration of 0 (or all ones) is "unknown" in ISO base media, not a movie that lasts no time.
    if (timescale > 0 && duration > 0 && duration !== 0xffffffff) out.seconds = duration / timescale
  }
  for (const [type, start, end] of inMoov) {
    if (type !== 'trak') continue
    const tkhd = children(bytes, start, end).find(([t]) => t === 'tkhd')
    if (tkhd === undefined) continue
    const v1 = bytes[tkhd[1]] === 1
    const matrix = tkhd[1] + (v1 ? 52 : 40)
    const at = tkhd[1] + (v1 ? 88 : 76)
    if (at + 8 > tkhd[2]) continue
    const width = bytes.readUInt32BE(at) / 65536
    const height = bytes.readUInt32BE(at + 4) / 65536
    if (width <= 0 || height <= 0) continue
    // The matrix is {a, b, u, c, d, v, x, y, w}: a quarter turn has a = d = 0 and b, c = ±1 (16.16 fixed point).
    const a = bytes.readInt32BE(matrix)
    const b = bytes.readInt32BE(matrix + 4)
    const turned = Math.abs(b) > Math.abs(a)
    return { ...out, width: turned ? height : width, height: turned ? width : height }
  }
  return out
}
