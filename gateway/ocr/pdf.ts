/**
 * Just enough PDF reading for a simulated OCR engine: the pages in document order, the text each page's content
 * stream shows (with its position) and the images it draws (with their pixel size). It reads the plain,
 * uncompressed PDFs that the conformance suite builds and simple ones like them; anything it cannot read is
 * refused by the caller, never guessed.
 *
 * Text: `x y Td (text) Tj` inside BT ... ET (absolute positions, one text item per BT block or several).
 * Images: `/Name Do` where the page's resources map /Name to an image XObject with /Width and /Height.
 */

export interface PdfTextItem {
  readonly x: number
  readonly y: number
  readonly text: string
}

export interface PdfImage {
  readonly width: number
  readonly height: number
}

export interface PdfPage {
  readonly text: PdfTextItem[]
  readonly images: PdfImage[]
  readonly width: number
  readonly height: number
}

interface PdfObject {
  readonly dict: string
  readonly stream: string | undefined
}

const OBJECT = /(\d+)\s+0\s+obj\b([\s\S]*?)\bendobj\b/g
const STREAM = /^([\s\S]*?)stream\r?\n([\s\S]*?)\r?\nendstream\s*$/
const TEXT_ITEM = /(-?[\d.]+)\s+(-?[\d.]+)\s+Td\s*\(((?:\\[\s\S]|[^\\)])*)\)\s*Tj/g

/** The pages of a PDF, or undefined when the bytes are not a PDF this reader understands. */
export function readPdf(bytes: Buffer): PdfPage[] | undefined {
  const text = bytes.toString('latin1')
  if (!text.startsWith('%PDF-')) return undefined
  const objects = new Map<number, PdfObject>()
  for (const match of text.matchAll(OBJECT)) {
    const body = match[2] as string
    const stream = STREAM.exec(body)
    objects.set(
      Number(match[1]),
      stream ? { dict: stream[1] as string, stream: stream[2] } : { dict: body, stream: undefined },
    )
  }
  const pages: PdfPage[] = []
  for (const object of pageObjectsInOrder(objects)) pages.push(readPage(object, objects))
  return pages.length > 0 ? pages : undefined
}

/** Page objects in the order of the page tree (Kids), falling back to object order. */
function pageObjectsInOrder(objects: Map<number, PdfObject>): PdfObject[] {
  const isPage = (o: PdfObject): boolean => /\/Type\s*\/Page(?![a-zA-Z])/.test(o.dict)
  const root = [...objects.values()].find((o) => /\/Type\s*\/Pages\b/.test(o.dict) && !/\/Parent\b/.test(o.dict))
  const kids = root ? /\/Kids\s*\[([^\]]*)\]/.exec(root.dict)?.[1] : undefined
  if (kids) {
    const ordered = [...kids.matchAll(/(\d+)\s+0\s+R/g)]
      .map((m) => objects.get(Number(m[1])))
      .filter((o): o is PdfObject => o !== undefined && isPage(o))
    if (ordered.length > 0) return ordered
  }
  return [...objects.values()].filter(isPage)
}

function readPage(page: PdfObject, objects: Map<number, PdfObject>): PdfPage {
  const box = /\/MediaBox\s*\[\s*(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s*\]/.exec(page.dict)
  const width = box ? Number(box[3]) - Number(box[1]) : 612
  const height = box ? Number(box[4]) - Number(box[2]) : 792
  const contentRefs = [
    ...(/\/Contents\s*(\[[^\]]*\]|\d+\s+0\s+R)/.exec(page.dict)?.[1] ?? '').matchAll(/(\d+)\s+0\s+R/g),
  ].map((m) => Number(m[1]))
  const content = contentRefs.map((ref) => objects.get(ref)?.stream ?? '').join('\n')
  const text = [...content.matchAll(TEXT_ITEM)].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    text: unescapePdfString(m[3] as string),
  }))
  const images: PdfImage[] = []
  for (const use of content.matchAll(/\/([A-Za-z0-9_.-]+)\s+Do\b/g)) {
    const ref = new RegExp(`/${escapeRegExp(use[1] as string)}\\s+(\\d+)\\s+0\\s+R`).exec(page.dict)
    const image = ref ? objects.get(Number(ref[1])) : undefined
    if (!image || !/\/Subtype\s*\/Image\b/.test(image.dict)) continue
    images.push({
      width: Number(/\/Width\s+(\d+)/.exec(image.dict)?.[1] ?? 0),
      height: Number(/\/Height\s+(\d+)/.exec(image.dict)?.[1] ?? 0),
    })
  }
  return { text, images, width, height }
}

function unescapePdfString(text: string): string {
  return text.replace(/\\([nrt()\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c)
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
