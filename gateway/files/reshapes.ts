/** The files faults that only reshape a correct answer, applied by its routes; ./faults.ts names them. */
import { eachListed, inTurn, onRoutes, type AnswerReshapes } from '../faults/answers.ts'
import type { FilesFault } from './faults.ts'

const LIST = 'GET /v1/files'
const RETRIEVE = 'GET /v1/files/:file_id'

type FileObject = Record<string, unknown>

/** Every file object an answer shows: the upload's, the retrieved one and each of the list. */
function eachFile(reshape: (file: FileObject) => FileObject) {
  return inTurn(onRoutes(['POST /v1/files', RETRIEVE], reshape), eachListed(LIST, reshape))
}

const kib = (bytes: unknown): unknown => (typeof bytes === 'number' ? Math.ceil(bytes / 1024) : bytes)

/** The files faults that only reshape an answer (../faults/answers.ts); the others bend the routes where they act. */
export const FILES_ANSWER_RESHAPES: AnswerReshapes<FilesFault> = {
  'file-bytes-string': eachFile((file) => ({ ...file, bytes: String(file.bytes) })),
  'file-bytes-kib': eachFile((file) => ({ ...file, bytes: kib(file.bytes) })),
  // The list alone counts in KiB; upload and retrieve stay right.
  'file-list-bytes-kib': eachListed(LIST, (file) => ({ ...file, bytes: kib(file.bytes) })),
  'retrieve-expires-at-null': onRoutes([RETRIEVE], (file) => ({ ...file, expires_at: null })),
  'file-list-no-has-more': onRoutes([LIST], ({ has_more: _hasMore, ...list }) => list),
}
