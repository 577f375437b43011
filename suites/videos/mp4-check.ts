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
