/** Multipart uploads for the files self-tests, built with the harness's own body builder. */
import type { FilePart } from '../../../harness/worker/multipart.ts'
import { multipartBody } from '../../../harness/worker/multipart.ts'
import type { CallOptions, CallResult, TestGateway } from './helpers.ts'

/** A multipart body collected into one buffer, for inject. A file undefined is a small text file; null is none. */
export async function form(
  fields: Array<[string, string]>,
  file?: FilePart | null,
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const body = multipartBody(
    fields,
    file === null ? undefined : (file ?? { filename: 'a.txt', contentType: 'text/plain', content: 'hello files\n' }),
  )
  const chunks: Uint8Array[] = []
  for await (const chunk of body.chunks()) chunks.push(Uint8Array.from(chunk))
  return { payload: Buffer.concat(chunks), headers: { ...body.headers } }
}

export async function uploadTo(
  gw: TestGateway,
  fields: Array<[string, string]>,
  file?: FilePart | null,
  options: CallOptions = {},
): Promise<CallResult> {
  const { payload, headers } = await form(fields, file)
  return gw.call('/v1/files', {
    ...options,
    method: 'POST',
    body: payload,
    headers: { ...headers, ...options.headers },
  })
}
