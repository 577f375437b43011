/**
 * From a read page to the page of the OCR result (Part 2 sections 2.3, 4.6): text items grouped into lines by
 * position, top to bottom; runs of lines with two or more items are a table, rendered in the asked table_format
 * (markdown, the default, or html); other lines are paragraphs. With extract_header (extract_footer) a line in
 * the top (bottom) margin goes to the page's header (footer) field instead of the markdown. Extracted images get
 * a placeholder in the markdown, as the widely used OCR convention writes them.
 */
import type { PdfPage, PdfTextItem } from './pdf.ts'

export type TableFormat = 'markdown' | 'html'

export interface RenderOptions {
  readonly tableFormat: TableFormat
  readonly extractHeader: boolean
  readonly extractFooter: boolean
}

export interface RenderedPage {
  readonly markdown: string
  readonly header: string | null
  readonly footer: string | null
}

const MARGIN = 60 // points from the top or bottom edge that count as header or footer

export function renderPage(page: PdfPage, options: RenderOptions, imageIds: readonly string[]): RenderedPage {
  const lines = linesOf(page.text)
  let header: string | null = null
  let footer: string | null = null
  const first = lines[0]
  if (options.extractHeader && first && first.y >= page.height - MARGIN) header = plain(lines.shift()!.items)
  const last = lines[lines.length - 1]
  if (options.extractFooter && last && last.y <= MARGIN) footer = plain(lines.pop()!.items)
  const blocks: string[] = []
  for (let i = 0; i < lines.length; ) {
    if (lines[i]!.items.length >= 2) {
      const rows: string[][] = []
      while (i < lines.length && lines[i]!.items.length >= 2) rows.push(lines[i++]!.items.map((item) => item.text))
      blocks.push(options.tableFormat === 'html' ? htmlTable(rows) : markdownTable(rows))
    } else {
      blocks.push(plain(lines[i++]!.items))
    }
  }
  for (const id of imageIds) blocks.push(`![${id}](${id})`)
  return { markdown: blocks.join('\n\n'), header, footer }
}

interface Line {
  readonly y: number
  readonly items: PdfTextItem[]
}

function linesOf(items: readonly PdfTextItem[]): Line[] {
  const byY = new Map<number, PdfTextItem[]>()
  for (const item of items) {
    const y = Math.round(item.y)
    byY.set(y, [...(byY.get(y) ?? []), item])
  }
  return [...byY.entries()].sort((a, b) => b[0] - a[0]).map(([y, row]) => ({ y, items: row.sort((a, b) => a.x - b.x) }))
}

function plain(items: readonly PdfTextItem[]): string {
  return items.map((item) => item.text).join(' ')
}

function markdownTable(rows: string[][]): string {
  const width = Math.max(...rows.map((row) => row.length))
  const cells = (row: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => (row[i] ?? '').replace(/\|/g, '\\|')).join(' | ')} |`
  return [
    cells(rows[0]!),
    `| ${Array.from({ length: width }, () => '---').join(' | ')} |`,
    ...rows.slice(1).map(cells),
  ].join('\n')
}

function htmlTable(rows: string[][]): string {
  const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  const row = (cells: string[], tag: 'th' | 'td') =>
    `<tr>${cells.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join('')}</tr>`
  return `<table>${row(rows[0]!, 'th')}${rows
    .slice(1)
    .map((r) => row(r, 'td'))
    .join('')}</table>`
}
