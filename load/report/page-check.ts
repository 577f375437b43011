/**
 * The one script report.html carries: on load it measures every chart and writes what it found into the DOM,
 * so that a headless browser's `--dump-dom` shows whether the charts really drew (the browser self-test reads
 * `data-charts-rendered` and each container's `data-chart-ok`). It changes nothing a reader sees.
 *
 * A chart counts as drawn when its SVG's content has a non-zero size and at least one path with a `d`: an empty
 * `<svg>` still takes 300 x 150 px of layout, so the bounding box of its content is measured, not the element.
 */
export const PAGE_CHECK_SCRIPT = `
addEventListener('load', () => {
  let drawn = 0
  const containers = document.querySelectorAll('[data-chart]')
  for (const container of containers) {
    const svg = container.querySelector('svg')
    let ok = false
    if (svg) {
      const box = svg.getBBox()
      const paths = Array.from(svg.querySelectorAll('path')).filter((p) => (p.getAttribute('d') || '').trim() !== '')
      ok = box.width > 0 && box.height > 0 && paths.length > 0
    }
    container.dataset.chartOk = String(ok)
    if (ok) drawn += 1
  }
  document.body.dataset.chartsTotal = String(containers.length)
  document.body.dataset.chartsRendered = String(drawn)
})
`
