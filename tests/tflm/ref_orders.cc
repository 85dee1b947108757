// ref_orders.cc — runs one of TFLM's reference int8 kernels on given buffers,
// for the tflm_ref_orders suite (tests/test_tflm_ref_orders.c, which builds
// it with g++ against the vendored TFLM tree): the kernel orders of
// src/tflm/kernel_orders.c verified against the real kernels.
//
// Protocol (host byte order), a stream of jobs on stdin, one answer each on
// stdout (flushed):
//   int64 h[KV_FIELDS] (the layout of tests/test_tflm_ref_orders.c's job())
//   int8 filter[n_filter]; int32 bias[n_ch], mult[n_ch], shift[n_ch];
//   int8 input[n_in]; ADD only: int8 other[n_elem]
// (QUANT: the input is n_elem float32 values, 4 * n_elem bytes; PAD pads with
// OUT_OFF, QUANT quantizes with scale 1/16 and zero point OUT_OFF)
// answer: int8 output[n_out].  With d >= 0 the input is copied to byte d of
// one buffer and the output written from byte 0 of the same buffer (the
// overlapped run); d < 0: two buffers.  Exit 0 at the end of the stream, 65
// on a malformed job.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tensorflow/lite/kernels/internal/reference/integer_ops/add.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/conv.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/depthwise_conv.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/fully_connected.h"
#include "tensorflow/lite/kernels/internal/reference/integer_ops/pooling.h"
#include "tensorflow/lite/kernels/internal/reference/pad.h"
#include "tensorflow/lite/kernels/internal/reference/quantize.h"
#include "tensorflow/lite/kernels/internal/types.h"

namespace {

enum Field {
  KIND, BATCHES, H_IN, W_IN, C_IN, H_OUT, W_OUT, C_OUT, K_H, K_W, S_H, S_W, D_H, D_W, PAD_TOP, PAD_LEFT,
  DEPTH_MULT, N_ELEM, IN_OFF, OUT_OFF, OPERAND, GAP, N_FILTER, N_CH, PER_CHANNEL, GROUPS, B_OUT, PAD_N, PAD_C,
  KV_FIELDS
};
enum Kind { CONV, DW, FC, AVG, MAX, ADD, PAD, QUANT };

bool read_all(void* p, size_t n) { return n == 0 || fread(p, 1, n, stdin) == n; }

tflite::RuntimeShape shape4(int64_t a, int64_t b, int64_t c, int64_t d) {
  const int32_t dims[4] = {int32_t(a), int32_t(b), int32_t(c), int32_t(d)};
  return tflite::RuntimeShape(4, dims);
}

tflite::RuntimeShape shape2(int64_t a, int64_t b) {
  const int32_t dims[2] = {int32_t(a), int32_t(b)};
  return tflite::RuntimeShape(2, dims);
}

// The window fields ConvParams and DepthwiseParams share, from the job header.
template <class Params>
void window_params(Params& p, const int64_t* h) {
  p.input_offset = int32_t(h[IN_OFF]);
  p.output_offset = int32_t(h[OUT_OFF]);
  p.stride_height = int(h[S_H]);
  p.stride_width = int(h[S_W]);
  p.dilation_height_factor = int(h[D_H]);
  p.dilation_width_factor = int(h[D_W]);
  p.padding_values.height = int(h[PAD_TOP]);
  p.padding_values.width = int(h[PAD_LEFT]);
  p.quantized_activation_min = -128;
  p.quantized_activation_max = 127;
}

struct Job {
  int64_t h[KV_FIELDS];
  std::vector<int8_t> filter, input, other;
  std::vector<int32_t> bias, mult, shift;
};

// The kernel of job j reading in, writing out (which may overlap in).
void run(const Job& j, const int8_t* in, int8_t* out) {
  const int64_t* h = j.h;
  const auto in_shape = shape4(h[BATCHES], h[H_IN], h[W_IN], h[C_IN]);
  const auto out_shape = shape4(h[BATCHES], h[H_OUT], h[W_OUT], h[C_OUT]);
  const int32_t cout = int32_t(h[C_OUT]);
  const tflite::RuntimeShape bshape(1, &cout);
  switch (h[KIND]) {
    case CONV: {
      tflite::ConvParams p = {};
      window_params(p, h);
      tflite::reference_integer_ops::ConvPerChannel(
          p, j.mult.data(), j.shift.data(), in_shape, in, shape4(h[C_OUT], h[K_H], h[K_W], h[C_IN] / h[GROUPS]),
          j.filter.data(), bshape, j.bias.data(), out_shape, out);
      break;
    }
    case DW: {
      tflite::DepthwiseParams p = {};
      window_params(p, h);
      p.depth_multiplier = int(h[DEPTH_MULT]);
      tflite::reference_integer_ops::DepthwiseConvPerChannel(
          p, j.mult.data(), j.shift.data(), in_shape, in, shape4(1, h[K_H], h[K_W], h[C_OUT]), j.filter.data(),
          bshape, j.bias.data(), out_shape, out);
      break;
    }
    case FC: {
      tflite::FullyConnectedParams p = {};
      p.input_offset = int32_t(h[IN_OFF]);
      p.weights_offset = 0;
      p.output_offset = int32_t(h[OUT_OFF]);
      p.output_multiplier = j.mult[0];
      p.output_shift = j.shift[0];
      p.quantized_activation_min = -128;
      p.quantized_activation_max = 127;
      const auto fi = shape2(h[BATCHES], h[C_IN]), fo = shape2(h[BATCHES], h[C_OUT]);
      const auto ff = shape2(h[C_OUT], h[C_IN]);
      if (h[PER_CHANNEL]) {
        std::vector<int> shift(j.shift.begin(), j.shift.end());
        tflite::reference_integer_ops::FullyConnectedPerChannel<int8_t, int8_t, int8_t, int32_t>(
            p, j.mult.data(), shift.data(), fi, in, ff, j.filter.data(), bshape, j.bias.data(), fo, out);
      } else {
        tflite::reference_integer_ops::FullyConnected<int8_t, int8_t, int8_t, int32_t>(
            p, fi, in, ff, j.filter.data(), bshape, j.bias.data(), fo, out);
      }
      break;
    }
    case AVG:
    case MAX: {
      tflite::PoolParams p = {};
      p.stride_height = int(h[S_H]);
      p.stride_width = int(h[S_W]);
      p.filter_height = int(h[K_H]);
      p.filter_width = int(h[K_W]);
      p.padding_values.height = int(h[PAD_TOP]);
      p.padding_values.width = int(h[PAD_LEFT]);
      p.quantized_activation_min = -128;
      p.quantized_activation_max = 127;
      if (h[KIND] == AVG)
        tflite::reference_integer_ops::AveragePool(p, in_shape, in, out_shape, out);
      else
        tflite::reference_integer_ops::MaxPool(p, in_shape, in, out_shape, out);
      break;
    }
    case ADD: {
      tflite::ArithmeticParams p = {};
      p.input1_offset = int32_t(h[IN_OFF]);
      p.input2_offset = -int32_t(h[OUT_OFF]) / 2;
      p.left_shift = 20;
      p.input1_multiplier = p.input2_multiplier = p.output_multiplier = 1 << 30;
      p.input1_shift = p.input2_shift = -1;
      p.output_shift = -19;
      p.output_offset = int32_t(h[OUT_OFF]);
      p.quantized_activation_min = -128;
      p.quantized_activation_max = 127;
      const int32_t n = int32_t(h[N_ELEM]);
      const tflite::RuntimeShape s(1, &n);
      const int8_t* a = h[OPERAND] == 0 ? in : j.other.data();
      const int8_t* b = h[OPERAND] == 0 ? j.other.data() : in;
      tflite::reference_integer_ops::Add(p, s, a, s, b, s, out);
      break;
    }
    case PAD: {
      tflite::PadParams p = {};
      p.left_padding_count = p.right_padding_count = 4;
      const int64_t before[4] = {h[PAD_N], h[PAD_TOP], h[PAD_LEFT], h[PAD_C]};
      const int64_t ins[4] = {h[BATCHES], h[H_IN], h[W_IN], h[C_IN]}, outs[4] = {h[B_OUT], h[H_OUT], h[W_OUT], h[C_OUT]};
      for (int i = 0; i < 4; i++) {
        p.left_padding[i] = int32_t(before[i]);
        p.right_padding[i] = int32_t(outs[i] - ins[i] - before[i]);
      }
      const int8_t pad_value = int8_t(h[OUT_OFF]);
      tflite::reference_ops::Pad(p, in_shape, in, &pad_value, shape4(h[B_OUT], h[H_OUT], h[W_OUT], h[C_OUT]), out);
      break;
    }
    case QUANT: {
      tflite::QuantizationParams p = {};
      p.zero_point = int32_t(h[OUT_OFF]);
      p.scale = 1.0 / 16;
      const int32_t n = int32_t(h[N_ELEM]);
      const tflite::RuntimeShape s(1, &n);
      tflite::reference_ops::AffineQuantize(p, s, reinterpret_cast<const float*>(in), s, out);
      break;
    }
  }
}

}  // namespace

int main() {
  for (;;) {
    Job j;
    if (fread(j.h, sizeof j.h[0], KV_FIELDS, stdin) != KV_FIELDS) return 0;
    const int64_t* h = j.h;
    const bool add = h[KIND] == ADD, elementwise = add || h[KIND] == QUANT;
    const int64_t n_in = elementwise ? h[N_ELEM] * (h[KIND] == QUANT ? 4 : 1) : h[BATCHES] * h[H_IN] * h[W_IN] * h[C_IN];
    const int64_t n_out = elementwise ? h[N_ELEM]
                                      : (h[KIND] == PAD ? h[B_OUT] : h[BATCHES]) * h[H_OUT] * h[W_OUT] * h[C_OUT];
    if (h[KIND] < CONV || h[KIND] > QUANT || n_in < 1 || n_out < 1 || h[N_FILTER] < 0 || h[N_CH] < 1) return 65;
    j.filter.resize(size_t(h[N_FILTER]));
    j.bias.resize(size_t(h[N_CH]));
    j.mult.resize(size_t(h[N_CH]));
    j.shift.resize(size_t(h[N_CH]));
    j.input.resize(size_t(n_in));
    j.other.resize(add ? size_t(n_in) : 0);
    if (!read_all(j.filter.data(), j.filter.size()) || !read_all(j.bias.data(), 4 * j.bias.size()) ||
        !read_all(j.mult.data(), 4 * j.mult.size()) || !read_all(j.shift.data(), 4 * j.shift.size()) ||
        !read_all(j.input.data(), j.input.size()) || !read_all(j.other.data(), j.other.size()))
      return 65;
    const int64_t d = h[GAP];
    std::vector<int8_t> answer(static_cast<size_t>(n_out));
    if (d < 0) {
      run(j, j.input.data(), answer.data());
    } else {
      std::vector<int8_t> buf(size_t((d + n_in > n_out ? d + n_in : n_out) + 16), int8_t(0x55));
      std::memcpy(buf.data() + d, j.input.data(), size_t(n_in));
      run(j, buf.data() + d, buf.data());
      std::memcpy(answer.data(), buf.data(), size_t(n_out));
    }
    if (fwrite(answer.data(), 1, answer.size(), stdout) != answer.size() || fflush(stdout) != 0) return 74;
  }
}
