/* model.c — stand-in for a generated model (Standin-big, plan base); see ../../standin_body.h. */
#define STANDIN_NAME "Standin-big"
#define STANDIN_PLAN "base"
#define STANDIN_ARENA 300000
#define STANDIN_IN 0
#define STANDIN_MID 256
#define STANDIN_OUT 0
#include "../../standin_body.h"
