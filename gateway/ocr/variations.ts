/**
 * The OCR choices the reference leaves open, made as real providers make them (../variations.ts), in one place so
 * that the route reads as the reference says. Each is conformant: a suite that fails on one asks more than the words.
 */
import type { Tier } from '../limit-tables.ts'
import type { CatalogueModel } from '../models/catalogue.ts'
import type { VariationName } from '../variations.ts'

type Variations = ReadonlySet<VariationName>
type Page = Record<string, unknown> & { markdown: string }

const TABLE = /<table>[\s\S]*?<\/table>/g

/**
 * ocr-tables-apart: with table_format html, each table leaves the markdown for a tables array of the page, and
 * the markdown links to it, as a widely used OCR API does.
 */
function tablesApart(page: Page): Page {
  const tables: Array<{ id: string; content: string; format: 'html' }> = []
  const markdown = page.markdown.replace(TABLE, (html) => {
    const id = `tbl-${tables.length}.html`
    tables.push({ id, content: html, format: 'html' })
    return `[${id}](${id})`
  })
  return tables.length === 0 ? page : { ...page, markdown, tables }
}

/** ocr-provider-shape: bounding boxes, block classes and confidence per page (§2.3: "not shown"). */
function withProviderFields(page: Page): Page {
  const blocks = page.markdown
    .split('\n\n')
    .filter((text) => text !== '')
    .map((text, i) => ({
      type: text.startsWith('|') || text.startsWith('<table') ? 'table' : text.startsWith('![') ? 'image' : 'text',
      bbox: [72, 100 + i * 24, 540, 118 + i * 24],
      confidence: 0.98,
    }))
  return { ...page, blocks, confidence: 0.98 }
}

/** search-ocr-min-tier-3: the OCR model refuses keys below tier 3 (Part 1 §1.5: "a model has min_tier"). */
export function ocrTier(model: CatalogueModel, variations: Variations): CatalogueModel {
  return variations.has('search-ocr-min-tier-3') ? { ...model, minTier: Math.max(model.minTier, 3) as Tier } : model
}

export function providerAnswer(
  answer: Record<string, unknown> & { pages: Page[]; document_annotation: string | null },
  options: { tableFormat: 'markdown' | 'html'; asked: string },
  variations: Variations,
): Record<string, unknown> {
  let pages = answer.pages
  if (variations.has('ocr-tables-apart') && options.tableFormat === 'html') pages = pages.map(tablesApart)
  // ocr-alias-echoed: the model as the caller named it, an alias included ("resolves to it"; the echo is not shown).
  if (variations.has('ocr-alias-echoed')) answer = { ...answer, model: options.asked }
  if (!variations.has('ocr-provider-shape')) return { ...answer, pages }
  const { document_annotation: annotation, ...rest } = answer
  // "present when document_annotation_format is used": absent, not null, without one.
  return {
    ...rest,
    pages: pages.map(withProviderFields),
    ...(annotation === null ? {} : { document_annotation: annotation }),
  }
}
