// tflm_ops.h — what the two TFLM harnesses of the project share
// (tests/tflm/tflm_peer.cc on the host, tests/tflm/tflm_m33.cc in the
// Cortex-M33 image): the vendored tree's operator table, an op resolver
// that hands TFLM each kernel's own registration with only its invoke
// wrapped (so the memory plan is TFLM's own, and every operator's outputs
// can be read right after it ran), TFLM's log kept for error lines, and the
// search for the smallest arena
// AllocateTensors accepts.  Header only, included once per harness.
#ifndef RIPSIM_TESTS_TFLM_TFLM_OPS_H
#define RIPSIM_TESTS_TFLM_TFLM_OPS_H

#include <array>
#include <cstddef>
#include <cstring>
#include <new>
#include <utility>

#include "tensorflow/lite/core/api/flatbuffer_conversions.h"
#include "tensorflow/lite/micro/arena_allocator/single_arena_buffer_allocator.h"
#include "tensorflow/lite/micro/memory_planner/greedy_memory_planner.h"
#include "tensorflow/lite/micro/micro_allocator.h"
#include "tensorflow/lite/micro/micro_arena_constants.h"
#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/micro_op_resolver.h"
#include "tensorflow/lite/micro/recording_micro_allocator.h"
#include "tensorflow/lite/schema/schema_generated.h"
#include "tensorflow/lite/schema/schema_utils.h"

namespace tflm_ops {

// ---- TFLM's log ------------------------------------------------------------------
// A harness's DebugLog hands TFLM's messages to LogAppend; the last complete
// line is kept for an error line (LastLog), control characters as '?'.

inline char g_log_line[512];   // the line being written
inline char g_log_last[512];   // the last complete non-empty line
inline size_t g_log_len = 0;

inline void LogAppend(const char* text) {
  for (const char* c = text; *c; ++c) {
    if (*c == '\r' || *c == '\n') {
      if (g_log_len > 0) {
        g_log_line[g_log_len] = '\0';
        memcpy(g_log_last, g_log_line, g_log_len + 1);
      }
      g_log_len = 0;
    } else if (g_log_len + 1 < sizeof g_log_line) {
      g_log_line[g_log_len++] = static_cast<unsigned char>(*c) < 0x20 ? '?' : *c;
    }
  }
}

// TFLM's last message, for an error line.
inline const char* LastLog() { return g_log_last[0] ? g_log_last : "no message"; }

// ---- the operators ----------------------------------------------------------------

struct OpEntry {
  tflite::BuiltinOperator op;
  TFLMRegistration (*registration)();
  tflite::TfLiteBridgeBuiltinParseFunction parser;
};

// The 14 builtin operators of the vendored TFLM tree (its lib_sources.txt).
inline const OpEntry kOps[] = {
    {tflite::BuiltinOperator_ADD, tflite::Register_ADD, tflite::ParseAdd},
    {tflite::BuiltinOperator_AVERAGE_POOL_2D, tflite::Register_AVERAGE_POOL_2D, tflite::ParsePool},
    {tflite::BuiltinOperator_CONV_2D, tflite::Register_CONV_2D, tflite::ParseConv2D},
    {tflite::BuiltinOperator_DEPTHWISE_CONV_2D, tflite::Register_DEPTHWISE_CONV_2D,
     tflite::ParseDepthwiseConv2D},
    {tflite::BuiltinOperator_DEQUANTIZE, tflite::Register_DEQUANTIZE, tflite::ParseDequantize},
    {tflite::BuiltinOperator_FULLY_CONNECTED, tflite::Register_FULLY_CONNECTED,
     tflite::ParseFullyConnected},
    {tflite::BuiltinOperator_MAX_POOL_2D, tflite::Register_MAX_POOL_2D, tflite::ParsePool},
    {tflite::BuiltinOperator_MEAN, tflite::Register_MEAN, tflite::ParseReducer},
    {tflite::BuiltinOperator_PAD, tflite::Register_PAD, tflite::ParsePad},
    {tflite::BuiltinOperator_QUANTIZE, tflite::Register_QUANTIZE, tflite::ParseQuantize},
    {tflite::BuiltinOperator_RESHAPE, tflite::Register_RESHAPE, tflite::ParseReshape},
    {tflite::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR, tflite::Register_RESIZE_NEAREST_NEIGHBOR,
     tflite::ParseResizeNearestNeighbor},
    {tflite::BuiltinOperator_SOFTMAX, tflite::Register_SOFTMAX, tflite::ParseSoftmax},
    {tflite::BuiltinOperator_TRANSPOSE, tflite::Register_TRANSPOSE, tflite::ParseTranspose},
};
constexpr size_t kNumOps = sizeof kOps / sizeof kOps[0];

// The index of op in kOps, or kNumOps when the tree does not have it.
inline size_t OpIndex(tflite::BuiltinOperator op) {
  size_t k = 0;
  while (k < kNumOps && kOps[k].op != op) ++k;
  return k;
}

// Called after every operator that succeeded (null: nothing is observed);
// builtin is the operator's BuiltinOperator.  The invoke wrappers are plain
// functions, so they reach the harness through this global.
using AfterOpFn = void (*)(TfLiteContext* ctx, TfLiteNode* node, int builtin);
inline AfterOpFn g_after_op = nullptr;
// Called right before every operator (null: nothing), e.g. a marker an
// instruction counter watches.
inline void (*g_before_op)() = nullptr;

inline TFLMRegistration g_kernel[kNumOps];    // the kernels' own registrations
inline TFLMRegistration g_wrapped[kNumOps];   // what TFLM is given

template <size_t K>
TfLiteStatus ObservedInvoke(TfLiteContext* ctx, TfLiteNode* node) {
  if (g_before_op) g_before_op();
  TfLiteStatus s = g_kernel[K].invoke(ctx, node);
  if (s == kTfLiteOk && g_after_op) g_after_op(ctx, node, kOps[K].op);
  return s;
}

using InvokeFn = TfLiteStatus (*)(TfLiteContext*, TfLiteNode*);
template <size_t... K>
constexpr std::array<InvokeFn, sizeof...(K)> MakeInvokes(std::index_sequence<K...>) {
  return {{&ObservedInvoke<K>...}};
}
constexpr std::array<InvokeFn, kNumOps> kObservedInvokes =
    MakeInvokes(std::make_index_sequence<kNumOps>{});

// The resolver: every operator of kOps, each the kernel's registration with
// its invoke wrapped.  One instance per process (the tables are global).
class ObservingResolver : public tflite::MicroOpResolver {
 public:
  ObservingResolver() {
    for (size_t k = 0; k < kNumOps; ++k) {
      g_kernel[k] = kOps[k].registration();
      g_kernel[k].builtin_code = kOps[k].op;
      g_wrapped[k] = g_kernel[k];
      g_wrapped[k].invoke = kObservedInvokes[k];
    }
  }
  const TFLMRegistration* FindOp(tflite::BuiltinOperator op) const override {
    size_t k = OpIndex(op);
    return k < kNumOps ? &g_wrapped[k] : nullptr;
  }
  const TFLMRegistration* FindOp(const char*) const override { return nullptr; }
  tflite::TfLiteBridgeBuiltinParseFunction GetOpDataParser(
      tflite::BuiltinOperator op) const override {
    size_t k = OpIndex(op);
    return k < kNumOps ? kOps[k].parser : nullptr;
  }
};

// ---- the model ---------------------------------------------------------------

// Does the model carry OfflineMemoryAllocation metadata (a plan TFLM
// applies itself)?
inline bool HasOfflinePlan(const tflite::Model* model) {
  if (!model->metadata()) return false;
  for (size_t i = 0; i < model->metadata()->size(); ++i) {
    const auto* m = model->metadata()->Get(i);
    if (m->name() && strcmp(m->name()->c_str(), "OfflineMemoryAllocation") == 0) return true;
  }
  return false;
}

// The operator's name (its custom code for a CUSTOM one).
inline const char* OpName(const tflite::Model* model, const tflite::Operator* op) {
  const auto* code = model->operator_codes()->Get(op->opcode_index());
  tflite::BuiltinOperator b = tflite::GetBuiltinCode(code);
  if (b == tflite::BuiltinOperator_CUSTOM && code->custom_code()) return code->custom_code()->c_str();
  return tflite::EnumNameBuiltinOperator(b);
}

// ---- arena search ---------------------------------------------------------------

// TFLM puts its own allocator, planner and MicroAllocator objects at the
// arena's tail before anything else and does not check that they fit: an
// arena too small for them crashes (a placement new at nullptr).  Every
// arena at least this large holds them (each with its worst alignment
// padding); a smaller one never holds a model either, so it is refused
// without asking TFLM.
constexpr size_t kArenaFloor =
    sizeof(tflite::SingleArenaBufferAllocator) + alignof(tflite::SingleArenaBufferAllocator) +
    sizeof(tflite::GreedyMemoryPlanner) + alignof(tflite::GreedyMemoryPlanner) +
    sizeof(tflite::MicroAllocator) + alignof(tflite::MicroAllocator) +
    tflite::MicroArenaBufferAlignment();

// Does AllocateTensors succeed in the size bytes at arena, with an
// interpreter built in storage (sizeof(MicroInterpreter) bytes, aligned)?
// An interpreter whose AllocateTensors failed crashes when destroyed (TFLM),
// so a failed one is left as it is (its storage may be reused: nothing of it
// lives elsewhere); a successful one is destroyed.
inline bool AllocatesIn(const tflite::Model* model, const tflite::MicroOpResolver& resolver,
                        uint8_t* arena, size_t size, void* storage) {
  if (size < kArenaFloor) return false;
  auto* interp = new (storage) tflite::MicroInterpreter(model, resolver, arena, size);
  bool ok = interp->AllocateTensors() == kTfLiteOk;
  if (ok) interp->~MicroInterpreter();
  return ok;
}

// TFLM's arena head after AllocateTensors in the size bytes at arena (an
// interpreter built in storage, as AllocatesIn): the non-persistent part,
// from the arena's start, holding the planned tensors and the kernels'
// scratch buffers (GetNonPersistentUsedBytes; arena_used_bytes adds the
// persistent tail).  MicroInterpreter does not expose its allocator, so the
// model is allocated once more with a RecordingMicroAllocator: its head is
// planned by the same GreedyMemoryPlanner from the same requests (only its
// persistent allocations are recorded, and larger).  0 when AllocateTensors
// fails (the interpreter then left alive, as in AllocatesIn).
inline size_t ArenaHeadBytes(const tflite::Model* model, const tflite::MicroOpResolver& resolver,
                             uint8_t* arena, size_t size, void* storage) {
  if (size < kArenaFloor) return 0;
  tflite::RecordingMicroAllocator* allocator = tflite::RecordingMicroAllocator::Create(arena, size);
  if (allocator == nullptr) return 0;
  auto* interp = new (storage) tflite::MicroInterpreter(model, resolver, allocator);
  if (interp->AllocateTensors() != kTfLiteOk) return 0;
  const size_t head = allocator->GetSimpleMemoryAllocator()->GetNonPersistentUsedBytes();
  interp->~MicroInterpreter();
  return head;
}

// The smallest size for which fits(size) holds, given that fits(hi) does and
// fits(0) does not (an empty arena holds nothing): a bisection.  TFLM needs
// more than arena_used_bytes when planning takes temporary memory that is
// released before AllocateTensors returns.
template <typename Fits>
size_t FindMinArena(size_t hi, Fits fits) {
  size_t lo = 0;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

}  // namespace tflm_ops

#endif
