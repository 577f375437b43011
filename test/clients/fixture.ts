/**
 * Shared pieces of the official-client self-tests: the models they call, the gateway's transaction
 * list (to count at the gateway what a client sent) and a WAV check. The clients themselves are built in each
 * test file exactly as a user would build them; nothing here touches a client's internals.
 */

/**
 * Models the client tests call. Where the reference names a model (Part 2 §4.1 vidA-2, §4.2 tts-1, §4.7
 * omni-moderation-latest) that name is used; elsewhere the reference names none, so these are the reference
 * gateway's catalogue ids (gateway/models/catalogue.ts), each allowed at tier 2, the main key's tier.
 */
export const MODELS = {
  chat: 'gw-chat-mini',
  embedding: 'gw-embed-1',
  moderation: 'omni-moderation-latest',
  speech: 'tts-1',
  /** Part 2 §4.3: the base transcription model; translation (§4.4) takes it too. */
  transcription: 'gw-transcribe-1',
  /** Part 2 §4.3: stream is for the newer models only, not the base model. */
  streamingTranscription: 'gw-transcribe-2',
  video: 'vidA-2',
  /** Part 2 §4.8: the native interface serves only the provider's own models. */
  native: 'nv-gen-flash',
  nativeSpeech: 'nv-speech-flash-preview',
} as const

/** Part 1 §2.2: the fields of a transaction record these tests read. */
interface TransactionSeen {
  id: string
  status_code: number
}

/**
 * The caller's transactions (Part 1 §4.2), oldest first. Ids are UUID v7 (§2.2), so their text order is the
 * order in which the gateway received the calls.
 */
export async function transactionsOf(baseUrl: string, key: string): Promise<TransactionSeen[]> {
  const response = await fetch(`${baseUrl}/user/v1/transactions?page_size=1000`, {
    headers: { authorization: `Bearer ${key}` },
  })
  if (response.status !== 200) throw new Error(`GET /user/v1/transactions answered ${response.status}`)
  const body = (await response.json()) as { transactions: TransactionSeen[] }
  return body.transactions
    .map(({ id, status_code }) => ({ id, status_code }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** A WAV file's signature: RIFF....WAVE. */
export function isWav(bytes: Uint8Array): boolean {
  const text = Buffer.from(bytes.subarray(0, 12)).toString('latin1')
  return text.startsWith('RIFF') && text.endsWith('WAVE')
}
