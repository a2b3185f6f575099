// `error_from(body)`: runs `body`, which must throw symbolite::Error, and returns the error so
// a test can assert its kind and message.
#pragma once

#include <gtest/gtest.h>

#include "symbolite/support/error.h"

namespace symbolite::testing {

template <typename Body>
Error error_from(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected an Error";
  return Error(ErrorKind::kInternal, "no error thrown");
}

}  // namespace symbolite::testing
