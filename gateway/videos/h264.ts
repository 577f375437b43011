/**
 * The smallest honest H.264 stream: Baseline profile, every frame one IDR picture whose macroblocks are
 * all I_PCM (ITU-T H.264 section 7.3.5: raw samples, no transform, no prediction), so that a real decoder
 * shows exactly the grey level written and no encoder is needed. The gateway's videos are made of these
 * frames (see mp4.ts): a few hundred bytes per second of video at the sizes used.
 *
 * Bit syntax per H.264 section 7.3 (seq_parameter_set_rbsp, pic_parameter_set_rbsp, slice_header,
 * slice_data); Exp-Golomb codes per section 9.1; emulation prevention per section 7.4.1.
 */
import { SetupError } from '../errors.ts'

/** Baseline profile and level 1.0: the lowest, which every decoder handles; the pictures are tiny. */
export const H264_PROFILE = { profileIdc: 66, constraintFlags: 0xc0, levelIdc: 10 } as const

class BitWriter {
  readonly #bytes: number[] = []
  #current = 0
  #count = 0

  bit(value: number): void {
    this.#current = (this.#current << 1) | (value & 1)
    this.#count += 1
    if (this.#count === 8) {
      this.#bytes.push(this.#current)
      this.#current = 0
      this.#count = 0
    }
  }

  bits(value: number, width: number): void {
    for (let i = width - 1; i >= 0; i -= 1) this.bit((value >>> i) & 1)
  }

  /** ue(v), section 9.1. */
  ue(value: number): void {
    const code = value + 1
    const width = 32 - Math.clz32(code)
    this.bits(0, width - 1)
    this.bits(code, width)
  }

  /** se(v), section 9.1.1: 0, 1, -1, 2, -2 ... map to 0, 1, 2, 3, 4 ... */
  se(value: number): void {
    this.ue(value > 0 ? 2 * value - 1 : -2 * value)
  }

  get aligned(): boolean {
    return this.#count === 0
  }

  alignZero(): void {
    while (!this.aligned) this.bit(0)
  }

  byte(value: number): void {
    this.bits(value, 8)
  }

  /** rbsp_trailing_bits(): a stop bit, then zeros to the byte boundary. */
  trailing(): void {
    this.bit(1)
    this.alignZero()
  }

  done(): Uint8Array {
    if (!this.aligned) throw new SetupError('INTERNAL', 'RBSP not byte-aligned')
    return Uint8Array.from(this.#bytes)
  }
}

/** A NAL unit: header byte, then the RBSP with emulation-prevention bytes (section 7.4.1). */
function nal(refIdc: number, type: number, rbsp: Uint8Array): Uint8Array {
  const out: number[] = [(refIdc << 5) | type]
  let zeros = 0
  for (const byte of rbsp) {
    if (zeros >= 2 && byte <= 3) {
      out.push(3)
      zeros = 0
    }
    out.push(byte)
    zeros = byte === 0 ? zeros + 1 : 0
  }
  return Uint8Array.from(out)
}

const LOG2_MAX_FRAME_NUM = 4
const LOG2_MAX_POC_LSB = 4

/** seq_parameter_set_rbsp for a picture of whole macroblocks (width and height multiples of 16). */
export function sequenceParameterSet(width: number, height: number): Uint8Array {
  const w = new BitWriter()
  w.byte(H264_PROFILE.profileIdc)
  w.byte(H264_PROFILE.constraintFlags)
  w.byte(H264_PROFILE.levelIdc)
  w.ue(0) // seq_parameter_set_id
  w.ue(LOG2_MAX_FRAME_NUM - 4)
  w.ue(0) // pic_order_cnt_type
  w.ue(LOG2_MAX_POC_LSB - 4)
  w.ue(1) // max_num_ref_frames
  w.bit(0) // gaps_in_frame_num_value_allowed_flag
  w.ue(width / 16 - 1)
  w.ue(height / 16 - 1)
  w.bit(1) // frame_mbs_only_flag
  w.bit(1) // direct_8x8_inference_flag
  w.bit(0) // frame_cropping_flag
  w.bit(0) // vui_parameters_present_flag
  w.trailing()
  return nal(3, 7, w.done())
}

export function pictureParameterSet(): Uint8Array {
  const w = new BitWriter()
  w.ue(0) // pic_parameter_set_id
  w.ue(0) // seq_parameter_set_id
  w.bit(0) // entropy_coding_mode_flag: CAVLC
  w.bit(0) // bottom_field_pic_order_in_frame_present_flag
  w.ue(0) // num_slice_groups_minus1
  w.ue(0) // num_ref_idx_l0_default_active_minus1
  w.ue(0) // num_ref_idx_l1_default_active_minus1
  w.bit(0) // weighted_pred_flag
  w.bits(0, 2) // weighted_bipred_idc
  w.se(0) // pic_init_qp_minus26
  w.se(0) // pic_init_qs_minus26
  w.se(0) // chroma_qp_index_offset
  w.bit(1) // deblocking_filter_control_present_flag: so that slices can switch the filter off
  w.bit(0) // constrained_intra_pred_flag
  w.bit(0) // redundant_pic_cnt_present_flag
  w.trailing()
  return nal(3, 8, w.done())
}

/** mb_type of I_PCM in an I slice (Table 7-11). */
const I_PCM = 25

/**
 * One IDR picture of a single grey level (luma 16..235, chroma neutral). Consecutive IDR pictures need
 * different idr_pic_id values (section 7.4.3), so the caller passes the frame's index.
 */
export function idrFrame(width: number, height: number, luma: number, index: number): Uint8Array {
  const w = new BitWriter()
  w.ue(0) // first_mb_in_slice
  w.ue(7) // slice_type: I, and every slice of the picture is I
  w.ue(0) // pic_parameter_set_id
  w.bits(0, LOG2_MAX_FRAME_NUM) // frame_num: 0 for an IDR picture
  w.ue(index % 2) // idr_pic_id
  w.bits(0, LOG2_MAX_POC_LSB) // pic_order_cnt_lsb
  w.bit(0) // no_output_of_prior_pics_flag
  w.bit(0) // long_term_reference_flag
  w.se(0) // slice_qp_delta
  w.ue(1) // disable_deblocking_filter_idc: off, so the samples show exactly as written
  const sample = Math.min(235, Math.max(16, Math.round(luma)))
  const macroblocks = (width / 16) * (height / 16)
  for (let mb = 0; mb < macroblocks; mb += 1) {
    w.ue(I_PCM)
    w.alignZero() // pcm_alignment_zero_bit
    for (let i = 0; i < 256; i += 1) w.byte(sample)
    for (let i = 0; i < 128; i += 1) w.byte(128)
  }
  w.trailing()
  return nal(3, 5, w.done())
}
