/*
** tfl_model.h — a TFLite model (a .tflite flatbuffer, schema tflite
** "TFL3") decoded into plain C structs.
**
** rip_tfl_model_load / rip_tfl_model_parse read the whole model through the
** bounds-checked reader (fbs_read.h): every table, vector and string the
** schema below names is checked against the file, and a truncated, hostile
** or non-TFLite file is one line of error naming where ("MODEL.tflite:
** subgraph 0: tensor 12: shape: vector of ... runs past the end of the
** file"), never a read outside the file.  What is decoded:
**
**   Model          version, description, operator_codes, subgraphs (all of
**                  them: TFLM models have one; rip_tfl_check refuses more),
**                  buffers, metadata, the number of signature_defs;
**   OperatorCode   deprecated_builtin_code, builtin_code, their larger
**                  (`builtin`: the operator), custom_code, version;
**   SubGraph       name, tensors, inputs, outputs, operators;
**   Tensor         name, type, shape, shape_signature, buffer, is_variable,
**                  has_rank, quantization, whether it has sparsity;
**   QuantizationParameters  min, max, scale, zero_point,
**                  quantized_dimension, the details union's type;
**   Operator       opcode_index, inputs (-1 = an optional input left out),
**                  outputs, intermediates, custom_options, and the builtin
**                  options of the operators ripsim supports (below); any
**                  other options type is kept as its type number only;
**   Buffer         data (size and position in the file);
**   Metadata       name, buffer.
**
** The reader checks the file's structure, not what it means: indexes
** between tables (a tensor's buffer, an operator's tensors and opcode) are
** stored as read, and rip_tfl_check (tfl_check.h) checks them with the
** rest of the semantics.  Refused here because their data would not be in
** the file: buffers and custom options stored outside the flatbuffer (the
** offset/size fields of models over 2 GiB) and tensors naming an
** ExternalBuffer.
**
** Memory: the model owns everything it points to.  It keeps its own copy
** of the file (m->file); buffer data and custom options point into that
** copy, every other array and string is copied out.  The caller's bytes
** are not referenced after rip_tfl_model_parse returns.  Decoding is
** budgeted: a file whose tables share vectors so that the decoded model
** would be far larger than the file (more than RIP_TFL_DECODE_FACTOR times
** its size plus 1 MiB) is refused, so a small hostile file cannot demand
** gigabytes.
*/
#ifndef RIPSIM_TFL_MODEL_H
#define RIPSIM_TFL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layer.h"     /* RIP_ERR_LEN */
#include "status.h"

/* Largest file read: flatbuffers address 2^31 - 1 bytes. */
#define RIP_TFL_FILE_MAX ((size_t)INT32_MAX)
/* Decoding budget: bytes of decoded model per byte of file (plus 1 MiB). */
#define RIP_TFL_DECODE_FACTOR 64

/* TensorType (schema values; the file may hold others: kept as read). */
typedef enum rip_tfl_type {
    RIP_TFL_FLOAT32 = 0, RIP_TFL_FLOAT16 = 1, RIP_TFL_INT32 = 2, RIP_TFL_UINT8 = 3, RIP_TFL_INT64 = 4,
    RIP_TFL_STRING = 5, RIP_TFL_BOOL = 6, RIP_TFL_INT16 = 7, RIP_TFL_COMPLEX64 = 8, RIP_TFL_INT8 = 9,
    RIP_TFL_FLOAT64 = 10, RIP_TFL_COMPLEX128 = 11, RIP_TFL_UINT64 = 12, RIP_TFL_RESOURCE = 13,
    RIP_TFL_VARIANT = 14, RIP_TFL_UINT32 = 15, RIP_TFL_UINT16 = 16, RIP_TFL_INT4 = 17, RIP_TFL_BFLOAT16 = 18,
    RIP_TFL_INT2 = 19, RIP_TFL_UINT4 = 20, RIP_TFL_FLOAT8_E4M3FN = 21, RIP_TFL_FLOAT8_E5M2 = 22,
} rip_tfl_type;

/* The schema's name of a TensorType ("INT8"), or NULL when not in the schema. */
const char *rip_tfl_type_name(int type);
/* Bytes per element of a type; 0 for types without a whole fixed byte size
** (STRING, RESOURCE, VARIANT, INT4, INT2, UINT4) and types not in the schema. */
int rip_tfl_type_bytes(int type);

/* BuiltinOperator values of the operators ripsim supports (tfl_check.h);
** rip_tfl_op_name names every value of the schema. */
enum {
    RIP_TFL_OP_ADD = 0, RIP_TFL_OP_AVERAGE_POOL_2D = 1, RIP_TFL_OP_CONCATENATION = 2, RIP_TFL_OP_CONV_2D = 3,
    RIP_TFL_OP_DEPTHWISE_CONV_2D = 4, RIP_TFL_OP_DEQUANTIZE = 6, RIP_TFL_OP_FULLY_CONNECTED = 9,
    RIP_TFL_OP_MAX_POOL_2D = 17, RIP_TFL_OP_RESHAPE = 22, RIP_TFL_OP_SOFTMAX = 25, RIP_TFL_OP_CUSTOM = 32,
    RIP_TFL_OP_PAD = 34, RIP_TFL_OP_TRANSPOSE = 39, RIP_TFL_OP_MEAN = 40, RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR = 97,
    RIP_TFL_OP_QUANTIZE = 114,
};
/* The schema's name of a BuiltinOperator value ("CONV_2D"), or NULL when not in the schema. */
const char *rip_tfl_op_name(int32_t builtin);

/* BuiltinOptions union types of the decoded options (0 = none stored). */
enum {
    RIP_TFL_OPT_NONE = 0, RIP_TFL_OPT_CONV_2D = 1, RIP_TFL_OPT_DEPTHWISE_CONV_2D = 2, RIP_TFL_OPT_POOL_2D = 5,
    RIP_TFL_OPT_FULLY_CONNECTED = 8, RIP_TFL_OPT_SOFTMAX = 9, RIP_TFL_OPT_CONCATENATION = 10, RIP_TFL_OPT_ADD = 11,
    RIP_TFL_OPT_RESHAPE = 17, RIP_TFL_OPT_PAD = 22, RIP_TFL_OPT_TRANSPOSE = 26, RIP_TFL_OPT_REDUCER = 27,
    RIP_TFL_OPT_DEQUANTIZE = 38, RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR = 74, RIP_TFL_OPT_QUANTIZE = 89,
};
/* The schema's name of a BuiltinOptions type ("Conv2DOptions"; "NONE" for 0), or NULL. */
const char *rip_tfl_options_name(int type);
/* The options type an operator's builtin code uses among the decoded ones
** (Pool2DOptions for both pools, ReducerOptions for MEAN, ...), else 0. */
int rip_tfl_options_of_op(int32_t builtin);

/* Padding and ActivationFunctionType (schema values). */
enum { RIP_TFL_PAD_SAME = 0, RIP_TFL_PAD_VALID = 1 };
enum {
    RIP_TFL_ACT_NONE = 0, RIP_TFL_ACT_RELU = 1, RIP_TFL_ACT_RELU_N1_TO_1 = 2, RIP_TFL_ACT_RELU6 = 3,
    RIP_TFL_ACT_TANH = 4, RIP_TFL_ACT_SIGN_BIT = 5,
};
/* Names: "SAME"/"VALID", "NONE"/"RELU"/...; NULL when not in the schema. */
const char *rip_tfl_padding_name(int padding);
const char *rip_tfl_activation_name(int act);

/* The decoded options; fields as the schema names them, absent ones at the schema's defaults. */
typedef struct rip_tfl_conv_opts {
    int8_t padding, activation, quantized_bias_type;
    int32_t stride_w, stride_h, dilation_w, dilation_h;      /* dilations default 1 */
} rip_tfl_conv_opts;
typedef struct rip_tfl_dw_opts {
    int8_t padding, activation;
    int32_t stride_w, stride_h, depth_multiplier, dilation_w, dilation_h;   /* dilations default 1 */
} rip_tfl_dw_opts;
typedef struct rip_tfl_pool_opts {
    int8_t padding, activation;
    int32_t stride_w, stride_h, filter_w, filter_h;
} rip_tfl_pool_opts;
typedef struct rip_tfl_fc_opts {
    int8_t activation, weights_format, quantized_bias_type;
    bool keep_num_dims, asymmetric_quantize_inputs;
} rip_tfl_fc_opts;
typedef struct rip_tfl_softmax_opts {
    float beta;
} rip_tfl_softmax_opts;
typedef struct rip_tfl_concat_opts {
    int32_t axis;
    int8_t activation;
} rip_tfl_concat_opts;
typedef struct rip_tfl_add_opts {
    int8_t activation;
    bool pot_scale_int16;                                   /* default true */
} rip_tfl_add_opts;
typedef struct rip_tfl_reducer_opts {
    bool keep_dims;
} rip_tfl_reducer_opts;
typedef struct rip_tfl_reshape_opts {
    bool has_new_shape;                                     /* the vector is stored (it may be empty) */
    size_t n_new_shape;
    int32_t *new_shape;
} rip_tfl_reshape_opts;
typedef struct rip_tfl_resize_nn_opts {
    bool align_corners, half_pixel_centers;
} rip_tfl_resize_nn_opts;

typedef union rip_tfl_options {
    rip_tfl_conv_opts conv;          /* RIP_TFL_OPT_CONV_2D */
    rip_tfl_dw_opts dw;              /* RIP_TFL_OPT_DEPTHWISE_CONV_2D */
    rip_tfl_pool_opts pool;          /* RIP_TFL_OPT_POOL_2D */
    rip_tfl_fc_opts fc;              /* RIP_TFL_OPT_FULLY_CONNECTED */
    rip_tfl_softmax_opts softmax;    /* RIP_TFL_OPT_SOFTMAX */
    rip_tfl_concat_opts concat;      /* RIP_TFL_OPT_CONCATENATION */
    rip_tfl_add_opts add;            /* RIP_TFL_OPT_ADD */
    rip_tfl_reducer_opts reducer;    /* RIP_TFL_OPT_REDUCER */
    rip_tfl_reshape_opts reshape;    /* RIP_TFL_OPT_RESHAPE */
    rip_tfl_resize_nn_opts resize_nn;/* RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR */
} rip_tfl_options;                   /* Pad, Transpose, Quantize, Dequantize: no fields */

/* Fill o with the schema defaults of options type `type` (all zero for a type without defaults). */
void rip_tfl_options_default(int type, rip_tfl_options *o);

typedef struct rip_tfl_quant {
    bool present;                    /* the tensor has a QuantizationParameters table */
    size_t n_min, n_max, n_scale, n_zero_point;
    float *min, *max, *scale;
    int64_t *zero_point;
    int32_t quantized_dimension;
    uint8_t details_type;            /* QuantizationDetails union type: 0 none, else custom/blockwise/multi-axis */
} rip_tfl_quant;

typedef struct rip_tfl_tensor {
    char *name;                      /* "" when absent; a NUL inside the stored string ends it here */
    int type;                        /* TensorType as stored */
    size_t rank;
    int32_t *shape;                  /* rank dimensions (NULL when rank 0) */
    bool has_shape_signature;
    size_t n_shape_signature;
    int32_t *shape_signature;        /* -1 = a dimension unknown when converted */
    uint32_t buffer;                 /* index into m->buffers (0: the empty sentinel) */
    bool is_variable, has_rank, has_sparsity;
    rip_tfl_quant quant;
} rip_tfl_tensor;

typedef struct rip_tfl_operator {
    uint32_t opcode_index;           /* into m->opcodes */
    size_t n_inputs, n_outputs, n_intermediates;
    int32_t *inputs;                 /* tensor indexes; -1 = optional input absent */
    int32_t *outputs, *intermediates;
    int options_type;                /* BuiltinOptions union type as stored (0 = none) */
    bool options_decoded;            /* opt holds decoded options (see below) */
    rip_tfl_options opt;
    int options_2_type;              /* BuiltinOptions2 union type as stored (not decoded) */
    size_t custom_options_size;
    const uint8_t *custom_options;   /* into m->file; NULL when absent */
} rip_tfl_operator;
/* opt: when options_type is one of the RIP_TFL_OPT_* types, its table's
** fields (schema defaults for the absent ones) and options_decoded true.
** When no options are stored (options_type 0) and the operator's code
** uses one of those types (rip_tfl_options_of_op), that type's defaults,
** as TFLite assumes, and options_decoded true.  Otherwise (another type:
** "unknown") options_decoded false. */

typedef struct rip_tfl_opcode {
    int8_t deprecated_builtin_code;
    int32_t builtin_code;            /* the field as stored (default 0) */
    int32_t builtin;                 /* max(deprecated_builtin_code, builtin_code): the operator */
    char *custom_code;               /* NULL when absent */
    int32_t version;                 /* default 1 */
} rip_tfl_opcode;

typedef struct rip_tfl_subgraph {
    char *name;                      /* "" when absent */
    size_t n_tensors, n_inputs, n_outputs, n_operators;
    rip_tfl_tensor *tensors;
    int32_t *inputs, *outputs;       /* tensor indexes */
    rip_tfl_operator *operators;     /* in execution order */
} rip_tfl_subgraph;

typedef struct rip_tfl_buffer {
    const uint8_t *data;             /* into m->file; NULL when the buffer holds no data */
    size_t size;
} rip_tfl_buffer;

typedef struct rip_tfl_metadata {
    char *name;                      /* "" when absent ("OfflineMemoryAllocation", "min_runtime_version", ...) */
    uint32_t buffer;                 /* index into m->buffers, as stored */
} rip_tfl_metadata;

struct rip_tfl_arena;

typedef struct rip_tfl_model {
    char *label;                     /* the name in messages (the path given) */
    uint8_t *file;                   /* the model's copy of the file */
    size_t file_len;
    uint32_t version;
    char *description;               /* "" when absent */
    size_t n_opcodes, n_subgraphs, n_buffers, n_metadata, n_signature_defs;
    rip_tfl_opcode *opcodes;
    rip_tfl_subgraph *subgraphs;
    rip_tfl_buffer *buffers;
    rip_tfl_metadata *metadata;
    struct rip_tfl_arena *arena;     /* every copied array and string */
} rip_tfl_model;

/*
** Decode the len bytes at bytes (copied first) as a TFLite model; label
** names it in messages.  RIP_OK with *m (free with rip_tfl_model_free);
** RIP_S_DATA (not a TFLite model, truncated, a bound broken, data outside
** the flatbuffer, over the decoding budget), RIP_S_NOMEM, with err one line
** "LABEL: WHERE: WHAT".  On failure *m is empty (freeing it is harmless).
*/
rip_status rip_tfl_model_parse(const uint8_t *bytes, size_t len, const char *label, rip_tfl_model *m,
                               char err[RIP_ERR_LEN]);

/*
** Read the file at path and decode it (label: path).  As
** rip_tfl_model_parse, plus RIP_S_NOINPUT (cannot be opened or is not a
** regular file), RIP_S_IO (a read failed), RIP_S_DATA (over
** RIP_TFL_FILE_MAX bytes).
*/
rip_status rip_tfl_model_load(const char *path, rip_tfl_model *m, char err[RIP_ERR_LEN]);

void rip_tfl_model_free(rip_tfl_model *m);

/* Does the file at path carry TFLite's file identifier, "TFL3" at bytes 4
** to 7 (whatever its name)?  false when it cannot be read or is shorter.
** Only the identifier: rip_tfl_model_load says whether it is a model. */
bool rip_tfl_file_is_model(const char *path);

/* The constant data of tensor t (its buffer's bytes, in m->file) and their count in *bytes;
** NULL and 0 when t has no data (an activation) or its buffer index is out of range. */
const uint8_t *rip_tfl_tensor_data(const rip_tfl_model *m, const rip_tfl_tensor *t, size_t *bytes);

/* The first metadata entry named name (e.g. "OfflineMemoryAllocation"), or NULL. */
const rip_tfl_metadata *rip_tfl_metadata_find(const rip_tfl_model *m, const char *name);

/* The operator's code, or NULL when its opcode_index is out of range. */
const rip_tfl_opcode *rip_tfl_op_code(const rip_tfl_model *m, const rip_tfl_operator *op);

/* A tensor for messages: "tensor N (NAME)", the name cut to 60 bytes with "...", control bytes as '?'. */
void rip_tfl_tensor_label(const rip_tfl_subgraph *sg, int32_t t, char *out, size_t out_len);

#endif
