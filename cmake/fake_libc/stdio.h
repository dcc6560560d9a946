#include "_fake_types.h"
typedef struct _IO_FILE FILE;
