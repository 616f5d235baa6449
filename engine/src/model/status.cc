// Exit status of the command line per status code (docs/CONTRACT.md,
// "Exit status").
#include "tilesched/status.h"

namespace tilesched {

int Status::exit_code() const {
  switch (code_) {
    case StatusCode::kOk: return 0;
    case StatusCode::kInfeasible: return 1;
    case StatusCode::kInvalidInput: return 2;
    case StatusCode::kIoError: return 2;
  }
  return 2;
}

}  // namespace tilesched
