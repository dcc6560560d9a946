// The compile options of libacl_op_compiler, linked as its users link it (-lacl_op_compiler).
#include <cstring>
#include "acl/acl_op_compiler.h"
#include "probe.h"

static const probe_cases cases = {
    {"compile_options_are_kept", [] {
         EXPECT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, "allow_fp32_to_fp16"), ACL_SUCCESS);
         EXPECT_EQ(aclGetCompileoptSize(ACL_PRECISION_MODE), strlen("allow_fp32_to_fp16") + 1);
         EXPECT_EQ(aclGetCompileoptSize(ACL_OP_DEBUG_LEVEL), 0u);  // never set
         EXPECT_EQ(aclSetCompileopt(ACL_OP_JIT_COMPILE, "enable"), ACL_SUCCESS);
         EXPECT_EQ(aclGetCompileoptSize(ACL_OP_JIT_COMPILE), 256u);
         char value[256] = {};
         EXPECT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, value, sizeof value), ACL_SUCCESS);
         EXPECT_TRUE(strcmp(value, "disable") == 0);  // the SoC's default, as the vendor reads it back
         EXPECT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, value, 3), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclGetCompileopt(ACL_OP_DEBUG_OPTION, value, sizeof value), ACL_ERROR_API_NOT_SUPPORT);
         EXPECT_EQ(aclSetCompileopt(ACL_OP_DEBUG_OPTION, "oom"), ACL_SUCCESS);
         EXPECT_EQ(aclGetCompileopt(ACL_OP_DEBUG_OPTION, value, sizeof value), ACL_SUCCESS);
         EXPECT_TRUE(strcmp(value, "oom") == 0);
         EXPECT_EQ(aclGetCompileopt(ACL_PRECISION_MODE, value, sizeof value), ACL_ERROR_API_NOT_SUPPORT);
         EXPECT_EQ(aclGetCompileopt(ACL_OP_JIT_COMPILE, nullptr, 8), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclSetCompileopt(ACL_PRECISION_MODE, nullptr), ACL_ERROR_INVALID_PARAM);
         EXPECT_EQ(aclSetCompileopt(ACL_AUTO_TUNE_MODE, "x"), ACL_ERROR_FEATURE_UNSUPPORTED);
         EXPECT_EQ(aclSetCompileopt((aclCompileOpt)99, "x"), ACL_ERROR_INTERNAL_ERROR);
         EXPECT_MESSAGE_MENTIONS("aclSetCompileopt");
         EXPECT_EQ(aclopSetCompileFlag(ACL_OP_COMPILE_FUZZ), ACL_SUCCESS);
         EXPECT_EQ(aclopSetCompileFlag((aclOpCompileFlag)5), ACL_ERROR_INVALID_PARAM);
         return 0;
     }},
};

int main(int argc, char** argv) { return run_probe(cases, argc, argv); }
