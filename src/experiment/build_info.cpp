#include "experiment/build_info.h"

namespace ipisim::experiment {

std::string_view ipisim_version() {
    return IPISIM_VERSION;
}

}  // namespace ipisim::experiment
