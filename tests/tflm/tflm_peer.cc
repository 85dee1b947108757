// tflm_peer.cc — the TensorFlow Lite Micro peer of ripsim's model runtime:
// runs one .tflite model with TFLM's MicroInterpreter on one input and prints
// one JSON object with everything a comparison needs (TFLM's arena, the
// outputs' bytes, every operator's output tensors with their CRC-32 and,
// with --dump, their bytes in files).  Interface: tests/tflm/README.md.
//
// Built by tests/tflm/build-peer.sh (g++, against the vendored TFLM), once
// with TFLM's reference kernels and once with its CMSIS-NN kernels; the
// harness source is the same, TFLM_PEER_KERNELS names the variant.
//
// How every operator's outputs are seen without changing TFLM's memory
// plan: the op resolver is the harness's own, and each registration it
// hands to TFLM is the kernel's own (same init, prepare, free: so the same
// persistent allocations and scratch requests, so the same arena) with only
// the invoke function wrapped: the wrapper calls the kernel's invoke and
// then reads the node's output tensors through context->GetEvalTensor, the
// call every kernel makes, right after the operator ran and before any
// later operator can overwrite them.  No preserve_all_tensors (which would
// switch TFLM to its linear planner), no planner of ours.
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <new>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "tensorflow/lite/micro/debug_log.h"
#include "tensorflow/lite/micro/memory_helpers.h"
#include "tflm_ops.h"

extern "C" {
#include "bmp.h"
#include "rk_crc32.h"
}

#ifndef TFLM_PEER_KERNELS
#define TFLM_PEER_KERNELS "reference"
#endif
#ifndef TFLM_PEER_TFLM_COMMIT
#define TFLM_PEER_TFLM_COMMIT "unknown"
#endif

using namespace tflm_ops;

namespace {

// Exit statuses (sysexits, as ripsim's own command line).
constexpr int kExitUsage = 64, kExitData = 65, kExitNoInput = 66, kExitSoftware = 70,
              kExitCantCreate = 73, kExitIo = 74;

constexpr size_t kDefaultArena = 8u << 20;  // 8 MiB: every model of the suite fits

// ---- TFLM's log -------------------------------------------------------------
// TFLM prints through DebugLog (defined below, so the library's own stderr
// printer is not linked).  Its messages are kept (tflm_ops.h), the last one
// quoted in an error line; --verbose copies them to stderr as they come.

bool g_verbose = false;

[[gnu::format(printf, 2, 3)]] int Fail(int status, const char* fmt, ...);

int Fail(int status, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  for (char* c = msg; *c; ++c)
    if (static_cast<unsigned char>(*c) < 0x20) *c = '?';
  fprintf(stderr, "tflm_peer: %s\n", msg);
  return status;
}

}  // namespace

extern "C" void DebugLog(const char* format, va_list args) {
  char buf[512];
  va_list copy;
  va_copy(copy, args);
  vsnprintf(buf, sizeof buf, format, copy);
  va_end(copy);
  LogAppend(buf);
  if (g_verbose) fputs(buf, stderr);
}

extern "C" int DebugVsnprintf(char* buffer, size_t buf_size, const char* format,
                              va_list vlist) {
  return vsnprintf(buffer, buf_size, format, vlist);
}

namespace {

// ---- files --------------------------------------------------------------------

// Whole file at path into a 16-byte aligned buffer (flatbuffers wants >= 8);
// nullptr when it cannot be read.
uint8_t* ReadFile(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return nullptr;
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) bytes.insert(bytes.end(), chunk, chunk + k);
  bool bad = ferror(f) != 0;
  fclose(f);
  if (bad) return nullptr;
  uint8_t* buf = static_cast<uint8_t*>(aligned_alloc(16, (bytes.size() + 16) / 16 * 16));
  if (!buf) return nullptr;
  if (!bytes.empty()) memcpy(buf, bytes.data(), bytes.size());
  *size = bytes.size();
  return buf;
}

// Write n bytes to path; false on failure (errno set).
bool WriteFile(const char* path, const void* data, size_t n) {
  FILE* f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, n, f) == n;
  ok = (fclose(f) == 0) && ok;
  return ok;
}

bool EndsWith(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

// ---- JSON ---------------------------------------------------------------------

void JsonString(const char* s) {
  putchar('"');
  for (const unsigned char* c = reinterpret_cast<const unsigned char*>(s ? s : ""); *c; ++c) {
    if (*c == '"' || *c == '\\') printf("\\%c", *c);
    else if (*c < 0x20) printf("\\u%04x", *c);
    else putchar(*c);
  }
  putchar('"');
}

void JsonShape(const TfLiteIntArray* dims) {
  putchar('[');
  for (int i = 0; dims && i < dims->size; ++i) printf("%s%d", i ? ", " : "", dims->data[i]);
  putchar(']');
}

void JsonHex(const uint8_t* p, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; ++i) printf("%02x", p[i]);
  putchar('"');
}

// ---- the observed operators (tflm_ops.h's resolver) ---------------------------

// One operator's output tensor as seen right after the operator ran.
struct SeenOutput {
  int tensor;
  TfLiteType type;
  std::vector<int> shape;
  size_t bytes;
  long arena_offset;  // -1: not in the arena
  uint32_t crc32;
};

struct SeenOp {
  int builtin;
  std::vector<SeenOutput> outputs;
};

// What the observer does after every operator (one instance; the invoke
// wrappers are plain functions, so they reach it through a global).
struct Observer {
  bool active = false;          // record (the first, traced invoke) or only forward
  const uint8_t* arena = nullptr;
  size_t arena_size = 0;
  const char* dump_dir = nullptr;
  int dump_errno = 0;           // first failed dump write
  std::vector<SeenOp> ops;

  void AfterOp(TfLiteContext* ctx, TfLiteNode* node, int builtin) {
    SeenOp op;
    op.builtin = builtin;
    for (int k = 0; k < node->outputs->size; ++k) {
      int t = node->outputs->data[k];
      SeenOutput o{t, kTfLiteNoType, {}, 0, -1, 0};
      TfLiteEvalTensor* ev = t >= 0 ? ctx->GetEvalTensor(ctx, t) : nullptr;
      if (ev) {
        o.type = ev->type;
        for (int d = 0; ev->dims && d < ev->dims->size; ++d) o.shape.push_back(ev->dims->data[d]);
        if (tflite::TfLiteEvalTensorByteLength(ev, &o.bytes) != kTfLiteOk) o.bytes = 0;
        const uint8_t* p = static_cast<const uint8_t*>(ev->data.data);
        if (p >= arena && p < arena + arena_size) o.arena_offset = static_cast<long>(p - arena);
        o.crc32 = rk_crc32(p, o.bytes);
        if (dump_dir && dump_errno == 0) {
          char path[4096];
          snprintf(path, sizeof path, "%s/op-%03zu-out-%d.bin", dump_dir, ops.size(), k);
          if (!WriteFile(path, p, o.bytes)) dump_errno = errno ? errno : EIO;
        }
      }
      op.outputs.push_back(std::move(o));
    }
    ops.push_back(std::move(op));
  }
};

Observer g_observer;

// tflm_ops.h's hook: only the traced invoke is recorded.
void ObserveOp(TfLiteContext* ctx, TfLiteNode* node, int builtin) {
  if (g_observer.active) g_observer.AfterOp(ctx, node, builtin);
}

// ---- inputs -------------------------------------------------------------------

enum class InputKind { kZeros, kRaw, kF32, kBmp };

struct InputSpec {
  InputKind kind = InputKind::kZeros;
  const char* path = nullptr;
};

// MLPerf Tiny's reference harness (QuantizeFloatToInt8): round half away
// from zero of value / scale, plus the zero point, clamped to int8.
int8_t QuantizeToInt8(float value, float scale, int zero_point) {
  long q = lroundf(value / scale) + zero_point;
  if (q < -128) q = -128;
  if (q > 127) q = 127;
  return static_cast<int8_t>(q);
}

// Fill input tensor k from spec; 0 or an exit status (message printed).
int FillInput(TfLiteTensor* t, size_t k, const InputSpec& spec) {
  uint8_t* dst = static_cast<uint8_t*>(t->data.data);
  if (spec.kind == InputKind::kZeros) {
    memset(dst, 0, t->bytes);
    return 0;
  }
  if (spec.kind == InputKind::kBmp) {
    rip_bmp img;
    char err[RIP_ERR_LEN];
    rip_status st = rip_bmp_read(spec.path, &img, err);
    if (st != RIP_OK) return Fail(st == RIP_S_NOINPUT ? kExitNoInput : kExitData, "%s", err);
    int dims = t->dims->size;
    if (dims != 4 || t->dims->data[0] != 1 || (t->type != kTfLiteInt8 && t->type != kTfLiteUInt8)) {
      rip_bmp_free(&img);
      return Fail(kExitData, "%s: input %zu is not an int8/uint8 [1, H, W, C] tensor", spec.path, k);
    }
    st = rip_bmp_to_tensor(&img, t->dims->data[1], t->dims->data[2], t->dims->data[3], dst,
                           t->bytes, err);
    rip_bmp_free(&img);
    if (st != RIP_OK) return Fail(kExitData, "%s: input %zu: %s", spec.path, k, err);
    return 0;
  }
  size_t n = 0;
  uint8_t* data = ReadFile(spec.path, &n);
  if (!data) return Fail(kExitNoInput, "%s: cannot read", spec.path);
  int rc = 0;
  if (spec.kind == InputKind::kRaw) {
    if (n != t->bytes)
      rc = Fail(kExitData, "%s: %zu bytes, but input %zu (%s) takes %zu", spec.path, n, k,
                TfLiteTypeGetName(t->type), t->bytes);
    else
      memcpy(dst, data, n);
  } else {  // kF32
    size_t elems = 0, size = 0;
    tflite::TfLiteTypeSizeOf(t->type, &size);
    elems = size ? t->bytes / size : 0;
    if (n != 4 * elems) {
      rc = Fail(kExitData, "%s: %zu bytes, but input %zu has %zu elements (%zu float32 bytes)",
                spec.path, n, k, elems, 4 * elems);
    } else if (t->type == kTfLiteFloat32) {
      memcpy(dst, data, n);
    } else if (t->type == kTfLiteInt8) {
      for (size_t i = 0; i < elems; ++i) {
        float v;
        memcpy(&v, data + 4 * i, 4);
        reinterpret_cast<int8_t*>(dst)[i] = QuantizeToInt8(v, t->params.scale, t->params.zero_point);
      }
    } else {
      rc = Fail(kExitData, "%s: --input-f32 fills float32 or int8 inputs; input %zu is %s",
                spec.path, k, TfLiteTypeGetName(t->type));
    }
  }
  free(data);
  return rc;
}

// ---- arena search -------------------------------------------------------------

// Does AllocateTensors succeed with an arena of exactly size bytes?  A
// failed interpreter is left alive (tflm_ops.h): a bisection leaks about 20.
bool ArenaFits(const tflite::Model* model, const tflite::MicroOpResolver& resolver, size_t size) {
  if (size < kArenaFloor) return false;
  uint8_t* arena = static_cast<uint8_t*>(aligned_alloc(16, (size + 16) / 16 * 16));
  void* mem = aligned_alloc(alignof(tflite::MicroInterpreter),
                            (sizeof(tflite::MicroInterpreter) + 63) / 64 * 64);
  if (!arena || !mem) return false;
  bool ok = AllocatesIn(model, resolver, arena, size, mem);
  if (ok) {
    free(mem);
    free(arena);
  }
  return ok;
}

double NowMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void PrintTensorInfo(const tflite::SubGraph* sg, int index, const TfLiteTensor* t) {
  const auto* ft = sg->tensors()->Get(index);
  printf("\"tensor\": %d, \"name\": ", index);
  JsonString(ft->name() ? ft->name()->c_str() : "");
  printf(", \"type\": ");
  JsonString(TfLiteTypeGetName(t->type));
  printf(", \"shape\": ");
  JsonShape(t->dims);
  printf(", \"bytes\": %zu, \"scale\": %.9g, \"zero_point\": %d", t->bytes,
         static_cast<double>(t->params.scale), t->params.zero_point);
}

// ", "scale": S, "zero_point": Z" of a tensor quantized per tensor (one
// scale), nothing otherwise (float, or per-channel weights).
void PrintQuantization(const tflite::Tensor* t) {
  const auto* q = t->quantization();
  if (!q || !q->scale() || q->scale()->size() != 1) return;
  long long zp = q->zero_point() && q->zero_point()->size() == 1 ? q->zero_point()->Get(0) : 0;
  printf(", \"scale\": %.9g, \"zero_point\": %lld", static_cast<double>(q->scale()->Get(0)), zp);
}

const char kUsage[] =
    "usage: tflm_peer MODEL.tflite [--input FILE | --input-f32 FILE]... [--arena BYTES]\n"
    "                 [--dump DIR] [--save-input FILE] [--find-min-arena] [--repeat N]\n"
    "                 [--verbose]\n"
    "  --input FILE      next model input: a .bmp (TFLM's person-detection conversion) or\n"
    "                    raw bytes, exactly the tensor's size\n"
    "  --input-f32 FILE  next model input from little-endian float32 values: copied into a\n"
    "                    float32 tensor, quantized into an int8 one (MLPerf Tiny's rule)\n"
    "  inputs not given are zero bytes\n"
    "  --arena BYTES     arena given to TFLM (default 8388608)\n"
    "  --dump DIR        write each operator's outputs to DIR/op-NNN-out-K.bin\n"
    "  --save-input FILE write the bytes of input 0 as TFLM received them\n"
    "  --find-min-arena  also find the smallest arena AllocateTensors accepts\n"
    "  --repeat N        time N more invokes (default 1); outputs must not change\n"
    "  --verbose         copy TFLM's log to stderr\n";

// A whole number in [lo, hi] from text, or false.
bool ParseSize(const char* s, size_t lo, size_t hi, size_t* v) {
  if (!s || *s < '0' || *s > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long x = strtoull(s, &end, 10);
  if (errno || *end || x < lo || x > hi) return false;
  *v = static_cast<size_t>(x);
  return true;
}

int Run(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
      fputs(kUsage, stdout);
      return 0;
    }
    fputs(kUsage, stderr);
    return kExitUsage;
  }
  const char* model_path = argv[1];
  std::vector<InputSpec> inputs;
  size_t arena_size = kDefaultArena, repeat = 1;
  const char* dump_dir = nullptr;
  const char* save_input = nullptr;
  bool find_min = false;
  for (int i = 2; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!strcmp(a, "--input") || !strcmp(a, "--input-f32")) {
      if (!v) return Fail(kExitUsage, "%s needs a file", a);
      InputSpec s;
      s.kind = !strcmp(a, "--input-f32") ? InputKind::kF32
               : EndsWith(v, ".bmp") || EndsWith(v, ".BMP") ? InputKind::kBmp
                                                            : InputKind::kRaw;
      s.path = v;
      inputs.push_back(s);
      ++i;
    } else if (!strcmp(a, "--arena")) {
      if (!ParseSize(v, 1, size_t{1} << 32, &arena_size))
        return Fail(kExitUsage, "--arena takes a whole number of bytes in [1, 4294967296]");
      ++i;
    } else if (!strcmp(a, "--repeat")) {
      if (!ParseSize(v, 0, 100000, &repeat))
        return Fail(kExitUsage, "--repeat takes a whole number in [0, 100000]");
      ++i;
    } else if (!strcmp(a, "--dump")) {
      if (!v) return Fail(kExitUsage, "--dump needs a folder");
      dump_dir = v;
      ++i;
    } else if (!strcmp(a, "--save-input")) {
      if (!v) return Fail(kExitUsage, "--save-input needs a file");
      save_input = v;
      ++i;
    } else if (!strcmp(a, "--find-min-arena")) {
      find_min = true;
    } else if (!strcmp(a, "--verbose")) {
      g_verbose = true;
    } else {
      return Fail(kExitUsage, "unknown option %s (tflm_peer --help)", a);
    }
  }

  size_t model_size = 0;
  uint8_t* model_data = ReadFile(model_path, &model_size);
  if (!model_data) return Fail(kExitNoInput, "%s: cannot read", model_path);
  flatbuffers::Verifier verifier(model_data, model_size);
  if (!tflite::VerifyModelBuffer(verifier))
    return Fail(kExitData, "%s: not a valid .tflite flatbuffer", model_path);
  const tflite::Model* model = tflite::GetModel(model_data);
  if (!model->subgraphs() || model->subgraphs()->size() != 1)
    return Fail(kExitData, "%s: %u subgraphs (the peer runs models of one subgraph)", model_path,
                model->subgraphs() ? model->subgraphs()->size() : 0u);
  const tflite::SubGraph* sg = model->subgraphs()->Get(0);
  const size_t n_ops = sg->operators() ? sg->operators()->size() : 0;
  for (size_t i = 0; i < n_ops; ++i) {
    const auto* code = model->operator_codes()->Get(sg->operators()->Get(i)->opcode_index());
    if (OpIndex(tflite::GetBuiltinCode(code)) == kNumOps)
      return Fail(kExitData, "%s: operator %zu is %s, which the vendored TFLM tree does not have",
                  model_path, i, OpName(model, sg->operators()->Get(i)));
  }
  if (inputs.size() > sg->inputs()->size())
    return Fail(kExitUsage, "%zu inputs given, the model takes %u", inputs.size(),
                sg->inputs()->size());
  if (dump_dir && mkdir(dump_dir, 0777) != 0 && errno != EEXIST)
    return Fail(kExitCantCreate, "%s: cannot create (%s)", dump_dir, strerror(errno));

  if (arena_size < kArenaFloor)
    return Fail(kExitData,
                "%s: AllocateTensors failed with an arena of %zu bytes (smaller than TFLM's own "
                "allocator objects, %zu bytes, which TFLM does not check: it would crash)",
                model_path, arena_size, kArenaFloor);
  static ObservingResolver resolver;
  g_after_op = ObserveOp;
  uint8_t* arena = static_cast<uint8_t*>(aligned_alloc(16, (arena_size + 15) / 16 * 16));
  if (!arena) return Fail(kExitSoftware, "out of memory for an arena of %zu bytes", arena_size);
  memset(arena, 0, arena_size);
  // Never destroyed (see ArenaFits): the process ends after one run.
  alignas(tflite::MicroInterpreter) static uint8_t storage[sizeof(tflite::MicroInterpreter)];
  auto* interp = new (storage) tflite::MicroInterpreter(model, resolver, arena, arena_size);
  if (interp->AllocateTensors() != kTfLiteOk)
    return Fail(kExitData, "%s: AllocateTensors failed with an arena of %zu bytes (TFLM: %s)",
                model_path, arena_size, LastLog());
  const size_t used = interp->arena_used_bytes();

  std::vector<InputSpec> specs(interp->inputs_size());
  for (size_t k = 0; k < inputs.size(); ++k) specs[k] = inputs[k];
  for (size_t k = 0; k < specs.size(); ++k) {
    int rc = FillInput(interp->input(k), k, specs[k]);
    if (rc) return rc;
  }
  if (save_input && !WriteFile(save_input, interp->input(0)->data.data, interp->input(0)->bytes))
    return Fail(kExitCantCreate, "%s: cannot write (%s)", save_input, strerror(errno));
  // Inputs are read back from the arena after the run only if no operator
  // overwrote them; keep copies for the repeats.
  std::vector<std::vector<uint8_t>> input_bytes;
  for (size_t k = 0; k < specs.size(); ++k) {
    const uint8_t* p = static_cast<const uint8_t*>(interp->input(k)->data.data);
    input_bytes.emplace_back(p, p + interp->input(k)->bytes);
  }

  g_observer.arena = arena;
  g_observer.arena_size = arena_size;
  g_observer.dump_dir = dump_dir;
  g_observer.active = true;
  double t0 = NowMs();
  TfLiteStatus st = interp->Invoke();
  double traced_ms = NowMs() - t0;
  g_observer.active = false;
  if (st != kTfLiteOk) return Fail(kExitSoftware, "%s: Invoke failed (TFLM: %s)", model_path, LastLog());
  if (g_observer.dump_errno)
    return Fail(kExitIo, "%s: writing a dump failed (%s)", dump_dir, strerror(g_observer.dump_errno));
  // The k-th observed invoke is the model's operator k: TFLM runs subgraph 0
  // in order (none of the tree's 14 operators calls a subgraph).
  if (g_observer.ops.size() != n_ops)
    return Fail(kExitSoftware, "internal: %zu operators observed, the model has %zu",
                g_observer.ops.size(), n_ops);
  for (size_t i = 0; i < n_ops; ++i) {
    const auto* want = sg->operators()->Get(i)->outputs();
    const SeenOp& op = g_observer.ops[i];
    bool same = want && want->size() == op.outputs.size();
    for (size_t k = 0; same && k < op.outputs.size(); ++k) same = want->Get(k) == op.outputs[k].tensor;
    if (!same) return Fail(kExitSoftware, "internal: observed operator %zu is not the model's", i);
  }
  std::vector<std::vector<uint8_t>> outputs;
  for (size_t k = 0; k < interp->outputs_size(); ++k) {
    const uint8_t* p = static_cast<const uint8_t*>(interp->output(k)->data.data);
    outputs.emplace_back(p, p + interp->output(k)->bytes);
  }

  std::vector<double> times;
  bool repeats_identical = true;
  for (size_t r = 0; r < repeat; ++r) {
    for (size_t k = 0; k < specs.size(); ++k)
      memcpy(interp->input(k)->data.data, input_bytes[k].data(), input_bytes[k].size());
    t0 = NowMs();
    st = interp->Invoke();
    times.push_back(NowMs() - t0);
    if (st != kTfLiteOk) return Fail(kExitSoftware, "%s: repeated Invoke failed", model_path);
    for (size_t k = 0; k < outputs.size(); ++k)
      repeats_identical = repeats_identical &&
                          memcmp(interp->output(k)->data.data, outputs[k].data(), outputs[k].size()) == 0;
  }

  // The head, in an arena of its own (the run's arena still holds the outputs).
  size_t head = 0;
  {
    uint8_t* arena2 = static_cast<uint8_t*>(aligned_alloc(16, (arena_size + 15) / 16 * 16));
    alignas(tflite::MicroInterpreter) static uint8_t storage3[sizeof(tflite::MicroInterpreter)];
    if (!arena2) return Fail(kExitSoftware, "out of memory for an arena of %zu bytes", arena_size);
    head = ArenaHeadBytes(model, resolver, arena2, arena_size, storage3);
    if (head == 0)
      return Fail(kExitSoftware, "%s: AllocateTensors failed on the second allocation (for the head)", model_path);
    free(arena2);
  }
  size_t min_arena = 0;
  bool min_arena_same_outputs = false;
  if (find_min) {
    // arena_size fits (the run above); arena_used_bytes usually does too.
    min_arena = FindMinArena(ArenaFits(model, resolver, used) ? used : arena_size,
                             [&](size_t n) { return ArenaFits(model, resolver, n); });
    // Run once at exactly the smallest arena: same outputs?
    uint8_t* small = static_cast<uint8_t*>(aligned_alloc(16, (min_arena + 16) / 16 * 16));
    alignas(tflite::MicroInterpreter) static uint8_t storage2[sizeof(tflite::MicroInterpreter)];
    auto* it2 = new (storage2) tflite::MicroInterpreter(model, resolver, small, min_arena);
    if (small && it2->AllocateTensors() == kTfLiteOk) {
      for (size_t k = 0; k < specs.size(); ++k)
        memcpy(it2->input(k)->data.data, input_bytes[k].data(), input_bytes[k].size());
      min_arena_same_outputs = it2->Invoke() == kTfLiteOk;
      for (size_t k = 0; min_arena_same_outputs && k < outputs.size(); ++k)
        min_arena_same_outputs =
            memcmp(it2->output(k)->data.data, outputs[k].data(), outputs[k].size()) == 0;
    }
  }

  // ---- the report ----
  printf("{\n  \"peer\": \"tflite-micro\", \"tflm_commit\": ");
  JsonString(TFLM_PEER_TFLM_COMMIT);
  printf(", \"kernels\": ");
  JsonString(TFLM_PEER_KERNELS);
  printf(",\n  \"model\": ");
  JsonString(model_path);
  printf(", \"offline_memory_allocation\": %s,\n", HasOfflinePlan(model) ? "true" : "false");
  printf("  \"arena_size\": %zu, \"arena_used_bytes\": %zu, \"arena_head_bytes\": %zu", arena_size, used, head);
  if (find_min)
    printf(", \"min_arena_bytes\": %zu, \"min_arena_same_outputs\": %s", min_arena,
           min_arena_same_outputs ? "true" : "false");
  printf(",\n  \"invoke_ms\": {\"observed\": %.3f, \"repeats\": [", traced_ms);
  for (size_t r = 0; r < times.size(); ++r) printf("%s%.3f", r ? ", " : "", times[r]);
  printf("]}, \"repeats_identical\": %s,\n", repeats_identical ? "true" : "false");
  printf("  \"inputs\": [");
  for (size_t k = 0; k < specs.size(); ++k) {
    printf("%s\n    {\"index\": %zu, ", k ? "," : "", k);
    PrintTensorInfo(sg, sg->inputs()->Get(k), interp->input(k));
    printf(", \"source\": ");
    JsonString(specs[k].path ? specs[k].path : "zeros");
    printf(", \"crc32\": \"%08x\"}", rk_crc32(input_bytes[k].data(), input_bytes[k].size()));
  }
  printf("\n  ],\n  \"outputs\": [");
  for (size_t k = 0; k < outputs.size(); ++k) {
    printf("%s\n    {\"index\": %zu, ", k ? "," : "", k);
    PrintTensorInfo(sg, sg->outputs()->Get(k), interp->output(k));
    printf(", \"crc32\": \"%08x\", \"hex\": ", rk_crc32(outputs[k].data(), outputs[k].size()));
    JsonHex(outputs[k].data(), outputs[k].size());
    printf("}");
  }
  printf("\n  ],\n  \"operators\": [");
  for (size_t i = 0; i < g_observer.ops.size(); ++i) {
    const SeenOp& op = g_observer.ops[i];
    printf("%s\n    {\"index\": %zu, \"op\": ", i ? "," : "", i);
    JsonString(tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(op.builtin)));
    printf(", \"outputs\": [");
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      const SeenOutput& o = op.outputs[k];
      printf("%s{\"tensor\": %d, \"type\": ", k ? ", " : "", o.tensor);
      JsonString(TfLiteTypeGetName(o.type));
      printf(", \"shape\": [");
      for (size_t d = 0; d < o.shape.size(); ++d) printf("%s%d", d ? ", " : "", o.shape[d]);
      printf("], \"bytes\": %zu", o.bytes);
      PrintQuantization(sg->tensors()->Get(o.tensor));
      printf(", \"arena_offset\": ");
      if (o.arena_offset >= 0) printf("%ld", o.arena_offset);
      else printf("null");
      printf(", \"crc32\": \"%08x\"", o.crc32);
      if (dump_dir) printf(", \"file\": \"op-%03zu-out-%zu.bin\"", i, k);
      printf("}");
    }
    printf("]}");
  }
  printf("\n  ]\n}\n");
  if (fflush(stdout) != 0 || ferror(stdout)) return Fail(kExitIo, "writing the report failed");
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
