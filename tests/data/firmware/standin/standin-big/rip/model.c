/* model.c — stand-in for a generated model (Standin-big, plan rip); see ../../standin_body.h. */
#define STANDIN_NAME "Standin-big"
#define STANDIN_PLAN "rip"
#define STANDIN_ARENA 300000
#define STANDIN_IN 512
#define STANDIN_MID 0
#define STANDIN_OUT 512
#include "../../standin_body.h"
