// ref_orders.cc — runs one of TFLM's reference int8 kernels on given buffers,
// for the tflm_ref_orders suite (tests/test_tflm_ref_orders.c, which builds
// it with g++ against the vendored TFLM tree): the kernel orders of
// src/tflm/kernel_orders.c verified against the real kernels.
//
// Protocol: tests/korder_job.h (a stream of jobs on stdin, one answer each on
// stdout, flushed).  Exit 0 at the end of the stream, 65 on a malformed job.
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

#include "../korder_job.h"

namespace {

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
  p.input_offset = int32_t(h[F_IN_OFF]);
  p.output_offset = int32_t(h[F_OUT_OFF]);
  p.stride_height = int(h[F_S_H]);
  p.stride_width = int(h[F_S_W]);
  p.dilation_height_factor = int(h[F_D_H]);
  p.dilation_width_factor = int(h[F_D_W]);
  p.padding_values.height = int(h[F_PAD_TOP]);
  p.padding_values.width = int(h[F_PAD_LEFT]);
  p.quantized_activation_min = -128;
  p.quantized_activation_max = 127;
}

struct Job {
  int64_t h[KJ_FIELDS];
  std::vector<int8_t> filter, input, other;
  std::vector<int32_t> bias, mult, shift;
};

// The kernel of job j reading in, writing out (which may overlap in).
void run(const Job& j, const int8_t* in, int8_t* out) {
  const int64_t* h = j.h;
  const auto in_shape = shape4(h[F_BATCHES], h[F_H_IN], h[F_W_IN], h[F_C_IN]);
  const auto out_shape = shape4(h[F_BATCHES], h[F_H_OUT], h[F_W_OUT], h[F_C_OUT]);
  const int32_t cout = int32_t(h[F_C_OUT]);
  const tflite::RuntimeShape bshape(1, &cout);
  switch (h[F_KIND]) {
    case KV_CONV: {
      tflite::ConvParams p = {};
      window_params(p, h);
      tflite::reference_integer_ops::ConvPerChannel(
          p, j.mult.data(), j.shift.data(), in_shape, in, shape4(h[F_C_OUT], h[F_K_H], h[F_K_W], h[F_C_IN] / h[F_GROUPS]),
          j.filter.data(), bshape, j.bias.data(), out_shape, out);
      break;
    }
    case KV_DW: {
      tflite::DepthwiseParams p = {};
      window_params(p, h);
      p.depth_multiplier = int(h[F_DEPTH_MULT]);
      tflite::reference_integer_ops::DepthwiseConvPerChannel(
          p, j.mult.data(), j.shift.data(), in_shape, in, shape4(1, h[F_K_H], h[F_K_W], h[F_C_OUT]), j.filter.data(),
          bshape, j.bias.data(), out_shape, out);
      break;
    }
    case KV_FC: {
      tflite::FullyConnectedParams p = {};
      p.input_offset = int32_t(h[F_IN_OFF]);
      p.weights_offset = 0;
      p.output_offset = int32_t(h[F_OUT_OFF]);
      p.output_multiplier = j.mult[0];
      p.output_shift = j.shift[0];
      p.quantized_activation_min = -128;
      p.quantized_activation_max = 127;
      const auto fi = shape2(h[F_BATCHES], h[F_C_IN]), fo = shape2(h[F_BATCHES], h[F_C_OUT]);
      const auto ff = shape2(h[F_C_OUT], h[F_C_IN]);
      if (h[F_PER_CHANNEL]) {
        std::vector<int> shift(j.shift.begin(), j.shift.end());
        tflite::reference_integer_ops::FullyConnectedPerChannel<int8_t, int8_t, int8_t, int32_t>(
            p, j.mult.data(), shift.data(), fi, in, ff, j.filter.data(), bshape, j.bias.data(), fo, out);
      } else {
        tflite::reference_integer_ops::FullyConnected<int8_t, int8_t, int8_t, int32_t>(
            p, fi, in, ff, j.filter.data(), bshape, j.bias.data(), fo, out);
      }
      break;
    }
    case KV_AVG:
    case KV_MAX: {
      tflite::PoolParams p = {};
      p.stride_height = int(h[F_S_H]);
      p.stride_width = int(h[F_S_W]);
      p.filter_height = int(h[F_K_H]);
      p.filter_width = int(h[F_K_W]);
      p.padding_values.height = int(h[F_PAD_TOP]);
      p.padding_values.width = int(h[F_PAD_LEFT]);
      p.quantized_activation_min = -128;
      p.quantized_activation_max = 127;
      if (h[F_KIND] == KV_AVG)
        tflite::reference_integer_ops::AveragePool(p, in_shape, in, out_shape, out);
      else
        tflite::reference_integer_ops::MaxPool(p, in_shape, in, out_shape, out);
      break;
    }
    case KV_ADD: {
      tflite::ArithmeticParams p = {};
      p.input1_offset = int32_t(h[F_IN_OFF]);
      p.input2_offset = -int32_t(h[F_OUT_OFF]) / 2;
      p.left_shift = 20;
      p.input1_multiplier = p.input2_multiplier = p.output_multiplier = 1 << 30;
      p.input1_shift = p.input2_shift = -1;
      p.output_shift = -19;
      p.output_offset = int32_t(h[F_OUT_OFF]);
      p.quantized_activation_min = -128;
      p.quantized_activation_max = 127;
      const int32_t n = int32_t(h[F_N_ELEM]);
      const tflite::RuntimeShape s(1, &n);
      const int8_t* a = h[F_OPERAND] == 0 ? in : j.other.data();
      const int8_t* b = h[F_OPERAND] == 0 ? j.other.data() : in;
      tflite::reference_integer_ops::Add(p, s, a, s, b, s, out);
      break;
    }
    case KV_PAD: {
      tflite::PadParams p = {};
      p.left_padding_count = p.right_padding_count = 4;
      const int64_t before[4] = {h[F_PAD_N], h[F_PAD_TOP], h[F_PAD_LEFT], h[F_PAD_C]};
      const int64_t ins[4] = {h[F_BATCHES], h[F_H_IN], h[F_W_IN], h[F_C_IN]}, outs[4] = {h[F_B_OUT], h[F_H_OUT], h[F_W_OUT], h[F_C_OUT]};
      for (int i = 0; i < 4; i++) {
        p.left_padding[i] = int32_t(before[i]);
        p.right_padding[i] = int32_t(outs[i] - ins[i] - before[i]);
      }
      const int8_t pad_value = int8_t(h[F_OUT_OFF]);
      tflite::reference_ops::Pad(p, in_shape, in, &pad_value, shape4(h[F_B_OUT], h[F_H_OUT], h[F_W_OUT], h[F_C_OUT]), out);
      break;
    }
    case KV_QUANT: {
      tflite::QuantizationParams p = {};
      p.zero_point = int32_t(h[F_OUT_OFF]);
      p.scale = 1.0 / 16;
      const int32_t n = int32_t(h[F_N_ELEM]);
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
    if (fread(j.h, sizeof j.h[0], KJ_FIELDS, stdin) != KJ_FIELDS) return 0;
    const int64_t* h = j.h;
    if (!kj_valid(h)) return 65;
    const bool add = h[F_KIND] == KV_ADD;
    const int64_t n_in = kj_n_in(h), n_out = kj_n_out(h);
    j.filter.resize(size_t(h[F_N_FILTER]));
    j.bias.resize(size_t(h[F_N_CH]));
    j.mult.resize(size_t(h[F_N_CH]));
    j.shift.resize(size_t(h[F_N_CH]));
    j.input.resize(size_t(n_in));
    j.other.resize(add ? size_t(n_in) : 0);
    if (!read_all(j.filter.data(), j.filter.size()) || !read_all(j.bias.data(), 4 * j.bias.size()) ||
        !read_all(j.mult.data(), 4 * j.mult.size()) || !read_all(j.shift.data(), 4 * j.shift.size()) ||
        !read_all(j.input.data(), j.input.size()) || !read_all(j.other.data(), j.other.size()))
      return 65;
    const int64_t d = h[F_GAP];
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
