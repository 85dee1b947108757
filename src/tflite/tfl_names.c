/*
** tfl_names.c — the TFLite schema's names and fixed facts, as tables:
** TensorType names and element sizes, every BuiltinOperator name (so a
** refusal can name any operator, SVDF included), every BuiltinOptions
** union member, Padding and ActivationFunctionType names, and the
** defaults of the decoded options tables (tfl_model.h).  Transcribed from
** the schema (tensorflow/lite/schema/schema.fbs, TFLite Micro commit
** 90b983c2): enum values are positions, so each list is in schema order.
*/
#include "tfl_model.h"

#include <string.h>

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *const type_names[] = {
    "FLOAT32", "FLOAT16", "INT32", "UINT8", "INT64", "STRING", "BOOL", "INT16", "COMPLEX64", "INT8", "FLOAT64",
    "COMPLEX128", "UINT64", "RESOURCE", "VARIANT", "UINT32", "UINT16", "INT4", "BFLOAT16", "INT2", "UINT4",
    "FLOAT8_E4M3FN", "FLOAT8_E5M2",
};
/* 0: no whole fixed byte size (strings, handles, sub-byte packings) */
static const signed char type_bytes[] = {
    4, 2, 4, 1, 8, 0, 1, 2, 8, 1, 8, 16, 8, 0, 0, 4, 2, 0, 2, 0, 0, 1, 1,
};
_Static_assert(sizeof type_bytes == sizeof type_names / sizeof type_names[0], "one size per type");

const char *rip_tfl_type_name(int type)
{
    return type >= 0 && type < COUNT(type_names) ? type_names[type] : NULL;
}

int rip_tfl_type_bytes(int type)
{
    return type >= 0 && type < COUNT(type_bytes) ? type_bytes[type] : 0;
}

/* BuiltinOperator 0..209 */
static const char *const op_names[] = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE",
    "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU",
    "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
    "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN",
    "SUB", "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN",
    "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU",
    "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL",
    "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL",
    "LOG", "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX",
    "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV",
    "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR",
    "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2",
    "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE",
    "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE", "NON_MAX_SUPPRESSION_V4",
    "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL",
    "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D", "IMAG",
    "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL",
    "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS",
    "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
    "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT", "STABLEHLO_LOGISTIC",
    "STABLEHLO_ADD", "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_RESHAPE",
    "STABLEHLO_CLAMP", "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM", "STABLEHLO_CONVOLUTION",
    "STABLEHLO_SLICE", "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE", "STABLEHLO_ABS", "STABLEHLO_AND",
    "STABLEHLO_COSINE", "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR", "STABLEHLO_LOG", "STABLEHLO_MINIMUM",
    "STABLEHLO_NEGATE", "STABLEHLO_OR", "STABLEHLO_POWER", "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT",
    "STABLEHLO_SELECT", "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE",
    "STABLEHLO_CONVERT", "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE", "STABLEHLO_PAD",
    "STABLEHLO_IOTA", "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT", "STABLEHLO_WHILE",
    "STABLEHLO_GATHER", "STABLEHLO_TRANSPOSE", "DILATE", "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW",
    "STABLEHLO_COMPOSITE", "STABLEHLO_SHIFT_LEFT", "STABLEHLO_CBRT", "STABLEHLO_CASE",
};

const char *rip_tfl_op_name(int32_t builtin)
{
    return builtin >= 0 && builtin < COUNT(op_names) ? op_names[builtin] : NULL;
}

/* BuiltinOptions: NONE, then the union's members 1..126 */
static const char *const options_names[] = {
    "NONE", "Conv2DOptions", "DepthwiseConv2DOptions", "ConcatEmbeddingsOptions", "LSHProjectionOptions",
    "Pool2DOptions", "SVDFOptions", "RNNOptions", "FullyConnectedOptions", "SoftmaxOptions",
    "ConcatenationOptions", "AddOptions", "L2NormOptions", "LocalResponseNormalizationOptions", "LSTMOptions",
    "ResizeBilinearOptions", "CallOptions", "ReshapeOptions", "SkipGramOptions", "SpaceToDepthOptions",
    "EmbeddingLookupSparseOptions", "MulOptions", "PadOptions", "GatherOptions", "BatchToSpaceNDOptions",
    "SpaceToBatchNDOptions", "TransposeOptions", "ReducerOptions", "SubOptions", "DivOptions",
    "SqueezeOptions", "SequenceRNNOptions", "StridedSliceOptions", "ExpOptions", "TopKV2Options",
    "SplitOptions", "LogSoftmaxOptions", "CastOptions", "DequantizeOptions", "MaximumMinimumOptions",
    "ArgMaxOptions", "LessOptions", "NegOptions", "PadV2Options", "GreaterOptions", "GreaterEqualOptions",
    "LessEqualOptions", "SelectOptions", "SliceOptions", "TransposeConvOptions", "SparseToDenseOptions",
    "TileOptions", "ExpandDimsOptions", "EqualOptions", "NotEqualOptions", "ShapeOptions", "PowOptions",
    "ArgMinOptions", "FakeQuantOptions", "PackOptions", "LogicalOrOptions", "OneHotOptions",
    "LogicalAndOptions", "LogicalNotOptions", "UnpackOptions", "FloorDivOptions", "SquareOptions",
    "ZerosLikeOptions", "FillOptions", "BidirectionalSequenceLSTMOptions", "BidirectionalSequenceRNNOptions",
    "UnidirectionalSequenceLSTMOptions", "FloorModOptions", "RangeOptions", "ResizeNearestNeighborOptions",
    "LeakyReluOptions", "SquaredDifferenceOptions", "MirrorPadOptions", "AbsOptions", "SplitVOptions",
    "UniqueOptions", "ReverseV2Options", "AddNOptions", "GatherNdOptions", "CosOptions", "WhereOptions",
    "RankOptions", "ReverseSequenceOptions", "MatrixDiagOptions", "QuantizeOptions", "MatrixSetDiagOptions",
    "HardSwishOptions", "IfOptions", "WhileOptions", "DepthToSpaceOptions", "NonMaxSuppressionV4Options",
    "NonMaxSuppressionV5Options", "ScatterNdOptions", "SelectV2Options", "DensifyOptions", "SegmentSumOptions",
    "BatchMatMulOptions", "CumsumOptions", "CallOnceOptions", "BroadcastToOptions", "Rfft2dOptions",
    "Conv3DOptions", "HashtableOptions", "HashtableFindOptions", "HashtableImportOptions",
    "HashtableSizeOptions", "VarHandleOptions", "ReadVariableOptions", "AssignVariableOptions",
    "RandomOptions", "BucketizeOptions", "GeluOptions", "DynamicUpdateSliceOptions",
    "UnsortedSegmentProdOptions", "UnsortedSegmentMaxOptions", "UnsortedSegmentMinOptions",
    "UnsortedSegmentSumOptions", "ATan2Options", "SignOptions", "BitcastOptions", "BitwiseXorOptions",
    "RightShiftOptions",
};

const char *rip_tfl_options_name(int type)
{
    return type >= 0 && type < COUNT(options_names) ? options_names[type] : NULL;
}

int rip_tfl_options_of_op(int32_t builtin)
{
    switch (builtin) {
    case RIP_TFL_OP_CONV_2D: return RIP_TFL_OPT_CONV_2D;
    case RIP_TFL_OP_DEPTHWISE_CONV_2D: return RIP_TFL_OPT_DEPTHWISE_CONV_2D;
    case RIP_TFL_OP_AVERAGE_POOL_2D:
    case RIP_TFL_OP_MAX_POOL_2D: return RIP_TFL_OPT_POOL_2D;
    case RIP_TFL_OP_FULLY_CONNECTED: return RIP_TFL_OPT_FULLY_CONNECTED;
    case RIP_TFL_OP_SOFTMAX: return RIP_TFL_OPT_SOFTMAX;
    case RIP_TFL_OP_CONCATENATION: return RIP_TFL_OPT_CONCATENATION;
    case RIP_TFL_OP_ADD: return RIP_TFL_OPT_ADD;
    case RIP_TFL_OP_RESHAPE: return RIP_TFL_OPT_RESHAPE;
    case RIP_TFL_OP_PAD: return RIP_TFL_OPT_PAD;
    case RIP_TFL_OP_TRANSPOSE: return RIP_TFL_OPT_TRANSPOSE;
    case RIP_TFL_OP_MEAN: return RIP_TFL_OPT_REDUCER;
    case RIP_TFL_OP_DEQUANTIZE: return RIP_TFL_OPT_DEQUANTIZE;
    case RIP_TFL_OP_RESIZE_NEAREST_NEIGHBOR: return RIP_TFL_OPT_RESIZE_NEAREST_NEIGHBOR;
    case RIP_TFL_OP_QUANTIZE: return RIP_TFL_OPT_QUANTIZE;
    }
    return RIP_TFL_OPT_NONE;
}

void rip_tfl_options_default(int type, rip_tfl_options *o)
{
    memset(o, 0, sizeof *o);
    switch (type) {
    case RIP_TFL_OPT_CONV_2D:
        o->conv.dilation_w = o->conv.dilation_h = 1;
        break;
    case RIP_TFL_OPT_DEPTHWISE_CONV_2D:
        o->dw.dilation_w = o->dw.dilation_h = 1;
        break;
    case RIP_TFL_OPT_ADD:
        o->add.pot_scale_int16 = true;
        break;
    }
}

static const char *const padding_names[] = {"SAME", "VALID"};
static const char *const activation_names[] = {"NONE", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "SIGN_BIT"};

const char *rip_tfl_padding_name(int padding)
{
    return padding >= 0 && padding < COUNT(padding_names) ? padding_names[padding] : NULL;
}

const char *rip_tfl_activation_name(int act)
{
    return act >= 0 && act < COUNT(activation_names) ? activation_names[act] : NULL;
}
