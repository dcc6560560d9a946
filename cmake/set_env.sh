# opemu: source this file to use the emulated toolkit as a CANN / MACA install.
_opemu_prefix="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export ASCEND_TOOLKIT_HOME="${_opemu_prefix}"
export ASCEND_HOME_PATH="${_opemu_prefix}"
export ASCEND_OPP_PATH="${_opemu_prefix}/opp"
export MACA_PATH="${_opemu_prefix}"
export LD_LIBRARY_PATH="${_opemu_prefix}/lib64:${_opemu_prefix}/lib${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}"
unset _opemu_prefix
