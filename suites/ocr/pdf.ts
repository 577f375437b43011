/**
 * A small, valid PDF built in code: plain uncompressed objects, a page tree, Helvetica text placed with absolute
 * positions, optional grayscale images, and a correct cross-reference table, so that any OCR engine reads it. The
 * suite sends it as a Base64 data URL (Part 2 section 4.6), which needs no server to fetch from.
 */

interface PdfText {
  x: number
  y: number
  text: string
}

interface PdfPageSpec {
  texts: PdfText[]
  /** A grayscale image of this many pixels a side, drawn large on the page. */
  imagePixels?: number
}

const PAGE = { width: 612, height: 792 } // US Letter, in points

function escapeText(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`)
}

export function buildPdf(pages: readonly PdfPageSpec[]): Buffer {
  // Object numbers: 1 catalog, 2 page tree, 3 font, then per page: page, content, and an image when it has one.
  const objects: Array<string | Buffer> = []
  const pageRefs: number[] = []
  let next = 4
  const perPage = pages.map((spec) => {
    const page = next++
    const content = next++
    const image = spec.imagePixels === undefined ? undefined : next++
    pageRefs.push(page)
    return { spec, page, content, image }
  })
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>'
  objects[2] = `<< /Type /Pages /Kids [${pageRefs.map((r) => `${r} 0 R`).join(' ')}] /Count ${pages.length} >>`
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'
  for (const { spec, page, content, image } of perPage) {
    const xobject = image === undefined ? '' : ` /XObject << /Im1 ${image} 0 R >>`
    objects[page] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE.width} ${PAGE.height}] /Resources << /Font << /F1 3 0 R >>${xobject} >> /Contents ${content} 0 R >>`
    const ops = spec.texts.map((t) => `BT /F1 14 Tf ${t.x} ${t.y} Td (${escapeText(t.text)}) Tj ET`)
    if (image !== undefined) ops.push('q 144 0 0 144 400 560 cm /Im1 Do Q')
    const stream = ops.join('\n')
    objects[content] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`
    if (image !== undefined) {
      const side = spec.imagePixels as number
      // A checkerboard of eight squares a side, so that the image is not blank and reads as a picture, not noise.
      const square = Math.max(1, Math.floor(side / 8))
      const pixels = Buffer.alloc(side * side, 0)
      for (let i = 0; i < pixels.length; i += 1)
        pixels[i] = ((Math.floor(Math.floor(i / side) / square) + Math.floor((i % side) / square)) % 2) * 255
      objects[image] = Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${side} /Height ${side} /ColorSpace /DeviceGray /BitsPerComponent 8 /Length ${pixels.length} >>\nstream\n`,
          'latin1',
        ),
        pixels,
        Buffer.from('\nendstream', 'latin1'),
      ])
    }
  }
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')]
  let offset = chunks[0]!.length
  const offsets: number[] = []
  for (let n = 1; n < next; n += 1) {
    offsets[n] = offset
    const body = objects[n] as string | Buffer
    const chunk = Buffer.concat([
      Buffer.from(`${n} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ])
    chunks.push(chunk)
    offset += chunk.length
  }
  const xref = [
    `xref\n0 ${next}\n`,
    '0000000000 65535 f \n',
    ...offsets.slice(1).map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ].join('')
  chunks.push(Buffer.from(`${xref}trailer\n<< /Size ${next} /Root 1 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'))
  return Buffer.concat(chunks)
}

export function pdfDataUrl(pdf: Buffer): string {
  return `data:application/pdf;base64,${pdf.toString('base64')}`
}
