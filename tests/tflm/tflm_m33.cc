// tflm_m33.cc — the TensorFlow Lite Micro image for a Cortex-M33 (QEMU's
// mps2-an505, tests/tflm/README.md "Cortex-M33"): one model and its input
// linked in as arrays (m33_model, m33_input: tests/tflm/build-m33.sh makes
// them with .incbin), run with TFLM's CMSIS-NN kernels (DSP path), the
// report printed over semihosting as one JSON object (a subset of the host
// peer's, same field names), and the exit status saying whether it ran.
//
// The arena is all the RAM the link leaves (picolibc.ld's heap, between the
// end of .bss and the stack).  What the image does, in order:
//   1. AllocateTensors in the whole arena: arena_used_bytes;
//   2. an observed invoke (tflm_ops.h's resolver: every operator's outputs'
//      CRC-32 right after it ran): outputs (CRC-32 and hex);
//   3. a second invoke, not observed, between rk_mark_begin and rk_mark_end
//      (rk_mark_op before each operator): what the instruction counter of
//      firmware/tools/icount.c counts; its outputs must equal the first's;
//   4. on the device, the smallest arena AllocateTensors accepts (bisection
//      over the same memory) and whether a run in exactly that arena gives
//      the same outputs;
//   5. TFLM's arena head (tflm_ops.h ArenaHeadBytes: the planned tensors and
//      the kernels' scratch buffers) in the whole arena.
// Exit status: 0; 65 the model is not one the image can run (not a
// flatbuffer, an operator the tree has not, an input of the wrong size,
// AllocateTensors refusing the arena); 70 Invoke failed or the repeated or
// smallest-arena run differs.  Errors are one line on stderr,
// `tflm_m33: ...`.
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>

#include "tensorflow/lite/micro/debug_log.h"
#include "tensorflow/lite/micro/memory_helpers.h"
#include "tflm_ops.h"

extern "C" {
#include "rk_crc32.h"
#include "rk_markers.h"

// The model and its input 0 (build-m33.sh's .incbin), the arena's bounds
// (picolibc.ld).
extern const uint8_t m33_model[], m33_model_end[];
extern const uint8_t m33_input[], m33_input_end[];
extern uint8_t __heap_start[], __heap_end[];
extern uint8_t __stack[];  // the stack's top; it grows down to __heap_end
}

#ifndef TFLM_M33_KERNELS
#define TFLM_M33_KERNELS "cmsis-nn"
#endif

using namespace tflm_ops;

// ---- the C++ runtime this image supplies ---------------------------------------
// picolibc has no libstdc++ (Debian's is built for newlib); TFLM needs only
// these: its classes have virtual destructors, whose deleting variants name
// operator delete though nothing is ever deleted (TFLM allocates nothing
// from a heap), and abstract classes name __cxa_pure_virtual.
void operator delete(void*) noexcept { __builtin_trap(); }
void operator delete(void*, size_t) noexcept { __builtin_trap(); }
extern "C" void __cxa_pure_virtual() { __builtin_trap(); }

namespace {

constexpr int kExitData = 65, kExitSoftware = 70;

// TFLM's log: tflm_ops.h keeps its last line for an error.

[[gnu::format(printf, 2, 3)]] int Fail(int status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tflm_m33: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return status;
}

}  // namespace

extern "C" void DebugLog(const char* format, va_list args) {
  char buf[256];
  vsnprintf(buf, sizeof buf, format, args);
  LogAppend(buf);
}

extern "C" int DebugVsnprintf(char* buffer, size_t buf_size, const char* format, va_list vlist) {
  return vsnprintf(buffer, buf_size, format, vlist);
}

namespace {

// ---- the observed operators ----------------------------------------------------
// Each operator's line of the report is printed right after it ran (the
// observed invoke is not the counted one), so the image keeps no table.

size_t g_n_ops = 0;
uint32_t g_op_counter = 0;
const uint8_t* g_arena = nullptr;  // the arena, for the offsets in it
size_t g_arena_size = 0;

void ObserveOp(TfLiteContext* ctx, TfLiteNode* node, int builtin) {
  printf("%s\n    {\"index\": %zu, \"op\": \"%s\", \"outputs\": [", g_n_ops ? "," : "", g_n_ops,
         tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(builtin)));
  ++g_n_ops;
  for (int k = 0; k < node->outputs->size; ++k) {
    int t = node->outputs->data[k];
    TfLiteEvalTensor* ev = t >= 0 ? ctx->GetEvalTensor(ctx, t) : nullptr;
    size_t bytes = 0;
    if (ev && tflite::TfLiteEvalTensorByteLength(ev, &bytes) != kTfLiteOk) bytes = 0;
    const uint8_t* p = ev ? static_cast<const uint8_t*>(ev->data.data) : nullptr;
    printf("%s{\"tensor\": %d, \"bytes\": %zu, \"arena_offset\": ", k ? ", " : "", t, bytes);
    if (p && p >= g_arena && p < g_arena + g_arena_size) printf("%ld", static_cast<long>(p - g_arena));
    else printf("null");
    printf(", \"crc32\": \"%08lx\"}", static_cast<unsigned long>(rk_crc32(p, bytes)));
  }
  printf("]}");
}

void MarkOp() { rk_mark_op(g_op_counter++); }

// CRC-32 of all outputs, one after the other (tflm_peer's per-output CRCs
// are printed too; this one compares runs).
uint32_t OutputsCrc(tflite::MicroInterpreter* it) {
  uint32_t crc = rk_crc32(nullptr, 0);
  for (size_t k = 0; k < it->outputs_size(); ++k)
    crc = rk_crc32_update(crc, it->output(k)->data.data, it->output(k)->bytes);
  return crc;
}

// Copy the linked-in input into input 0 (the others are zero bytes); false
// when its size is not the tensor's.
bool FillInputs(tflite::MicroInterpreter* it) {
  size_t n = static_cast<size_t>(m33_input_end - m33_input);
  for (size_t k = 0; k < it->inputs_size(); ++k) memset(it->input(k)->data.data, 0, it->input(k)->bytes);
  if (it->inputs_size() == 0 || it->input(0)->bytes != n) return false;
  memcpy(it->input(0)->data.data, m33_input, n);
  return true;
}

alignas(tflite::MicroInterpreter) uint8_t g_storage[sizeof(tflite::MicroInterpreter)];

// ---- the stack's peak ----------------------------------------------------------
// The stack lies between __heap_end (the arena's end) and __stack: painted
// with a pattern below the current frame at the start, the lowest byte no
// longer holding it at the end is the deepest the stack went (a stack
// deeper than its region would have run into the arena's top, where TFLM
// keeps its persistent data).
constexpr uint8_t kPaint = 0xa5;

void PaintStack() {
  uint8_t here;
  uint8_t* sp = &here;
  for (uint8_t* p = __heap_end; p + 64 < sp; ++p) *p = kPaint;
}

size_t StackPeak() {
  const uint8_t* p = __heap_end;
  while (p < __stack && *p == kPaint) ++p;
  return static_cast<size_t>(__stack - p);
}

int Run() {
  const size_t model_size = static_cast<size_t>(m33_model_end - m33_model);
  flatbuffers::Verifier verifier(m33_model, model_size);
  if (!tflite::VerifyModelBuffer(verifier)) return Fail(kExitData, "the model is not a valid .tflite flatbuffer");
  const tflite::Model* model = tflite::GetModel(m33_model);
  if (!model->subgraphs() || model->subgraphs()->size() != 1)
    return Fail(kExitData, "the model has %u subgraphs (the image runs models of one)",
                static_cast<unsigned>(model->subgraphs() ? model->subgraphs()->size() : 0u));
  const tflite::SubGraph* sg = model->subgraphs()->Get(0);
  const size_t n_ops = sg->operators() ? sg->operators()->size() : 0;
  for (size_t i = 0; i < n_ops; ++i) {
    const auto* code = model->operator_codes()->Get(sg->operators()->Get(i)->opcode_index());
    if (OpIndex(tflite::GetBuiltinCode(code)) == kNumOps)
      return Fail(kExitData, "operator %zu is %s, which the vendored TFLM tree does not have", i,
                  OpName(model, sg->operators()->Get(i)));
  }

  // The arena: the heap region, 16-byte aligned at both ends.
  uint8_t* arena = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(__heap_start) + 15) & ~uintptr_t{15});
  const size_t arena_size = static_cast<size_t>(__heap_end - arena) & ~size_t{15};
  g_arena = arena;
  g_arena_size = arena_size;
  // Never destroyed (a static object with a destructor would need
  // __aeabi_atexit, which picolibc has not): the image ends after one run.
  alignas(ObservingResolver) static uint8_t resolver_storage[sizeof(ObservingResolver)];
  const ObservingResolver& resolver = *new (resolver_storage) ObservingResolver;

  auto* interp = new (g_storage) tflite::MicroInterpreter(model, resolver, arena, arena_size);
  if (arena_size < kArenaFloor || interp->AllocateTensors() != kTfLiteOk)
    return Fail(kExitData, "AllocateTensors failed with an arena of %zu bytes (TFLM: %s)", arena_size,
                LastLog());
  const size_t used = interp->arena_used_bytes();
  if (!FillInputs(interp))
    return Fail(kExitData, "the input has %zu bytes, input 0 takes %zu",
                static_cast<size_t>(m33_input_end - m33_input),
                interp->inputs_size() ? interp->input(0)->bytes : 0);
  const uint32_t input_crc = rk_crc32(interp->input(0)->data.data, interp->input(0)->bytes);

  // The report, its operators printed as they run.
  printf("{\n  \"peer\": \"tflite-micro\", \"target\": \"qemu-m33\", \"kernels\": \"%s\",\n",
         TFLM_M33_KERNELS);
  printf("  \"model_bytes\": %zu, \"offline_memory_allocation\": %s,\n", model_size,
         HasOfflinePlan(model) ? "true" : "false");
  printf("  \"arena_size\": %zu, \"arena_used_bytes\": %zu,\n", arena_size, used);
  printf("  \"inputs\": [{\"index\": 0, \"bytes\": %zu, \"crc32\": \"%08lx\"}],\n",
         interp->input(0)->bytes, static_cast<unsigned long>(input_crc));
  printf("  \"operators\": [");
  g_after_op = ObserveOp;
  TfLiteStatus st = interp->Invoke();
  g_after_op = nullptr;
  if (st != kTfLiteOk) return Fail(kExitSoftware, "Invoke failed (TFLM: %s)", LastLog());
  printf("\n  ],\n");
  if (g_n_ops != n_ops)
    return Fail(kExitSoftware, "internal: %zu operators observed, the model has %zu", g_n_ops, n_ops);

  printf("  \"outputs\": [");
  for (size_t k = 0; k < interp->outputs_size(); ++k) {
    const TfLiteTensor* t = interp->output(k);
    const uint8_t* p = static_cast<const uint8_t*>(t->data.data);
    printf("%s\n    {\"index\": %zu, \"type\": \"%s\", \"bytes\": %zu, \"crc32\": \"%08lx\", \"hex\": \"",
           k ? "," : "", k, TfLiteTypeGetName(t->type), t->bytes,
           static_cast<unsigned long>(rk_crc32(p, t->bytes)));
    for (size_t i = 0; i < t->bytes; ++i) printf("%02x", p[i]);
    printf("\"}");
  }
  printf("\n  ],\n");
  const uint32_t outputs_crc = OutputsCrc(interp);

  // The counted run: the same input again, nothing observed.
  FillInputs(interp);
  g_before_op = MarkOp;
  rk_mark_begin();
  st = interp->Invoke();
  rk_mark_end();
  g_before_op = nullptr;
  const bool repeat_same = st == kTfLiteOk && OutputsCrc(interp) == outputs_crc;
  printf("  \"repeats_identical\": %s,\n", repeat_same ? "true" : "false");
  interp->~MicroInterpreter();

  // The smallest arena, on the device, in the same memory.
  const size_t min_arena = FindMinArena(arena_size, [&](size_t n) {
    return AllocatesIn(model, resolver, arena, n, g_storage);
  });
  interp = new (g_storage) tflite::MicroInterpreter(model, resolver, arena, min_arena);
  bool min_same = interp->AllocateTensors() == kTfLiteOk && FillInputs(interp) &&
                  interp->Invoke() == kTfLiteOk && OutputsCrc(interp) == outputs_crc;
  printf("  \"min_arena_bytes\": %zu, \"min_arena_same_outputs\": %s,\n", min_arena,
         min_same ? "true" : "false");
  // The head (tflm_ops.h), in the whole arena again: its contents are no longer needed.
  if (min_same) interp->~MicroInterpreter();
  const size_t head = min_same ? ArenaHeadBytes(model, resolver, arena, arena_size, g_storage) : 0;
  printf("  \"arena_head_bytes\": %zu,\n", head);
  printf("  \"stack_bytes\": %zu, \"stack_peak_bytes\": %zu\n}\n",
         static_cast<size_t>(__stack - __heap_end), StackPeak());
  fflush(stdout);
  if (!repeat_same) return Fail(kExitSoftware, "the repeated invoke gave other outputs");
  if (!min_same) return Fail(kExitSoftware, "the run in the smallest arena (%zu bytes) gave other outputs", min_arena);
  if (head == 0) return Fail(kExitSoftware, "AllocateTensors failed on the allocation for the head");
  return 0;
}

}  // namespace

int main() {
  PaintStack();
  return Run();
}
