#include "symbolite/runtime/delegate/custom_class.h"

#include <fmt/format.h>

#include "symbolite/runtime/delegate/delegate_backend.h"

namespace symbolite::runtime {
namespace {

constexpr std::string_view kBackendPrefix = "__torch__.torch.classes.__backends__.";
constexpr std::string_view kDebugInfoClass =
    "__torch__.torch.classes.backendutils.BackendDebugInfo";

[[noreturn]] void no_method(std::string_view type, std::string_view method) {
  throw Error(ErrorKind::kNotFound, fmt::format("{} has no method '{}'", type, method));
}

void need_args(std::string_view method, const ops::IValueList& args, std::size_t n) {
  if (args.size() != n) {
    throw Error(ErrorKind::kModel,
                fmt::format("{}() takes {} arguments, got {}", method, n, args.size()));
  }
}

class BackendObject final : public CustomClass {
 public:
  BackendObject(std::string type, std::unique_ptr<DelegateBackend> backend)
      : type_(std::move(type)), backend_(std::move(backend)) {}

  ops::IValue call(std::string_view method, const ops::IValueList& args) override {
    if (method == "__init__") return {};
    if (method == "is_available") {
      need_args(method, args, 0);
      return ops::IValue(backend_->is_available());
    }
    if (method == "compile") {
      need_args(method, args, 2);
      return backend_->compile(args[0], args[1]);
    }
    if (method == "execute") {
      need_args(method, args, 2);
      return ops::IValue::list(backend_->execute(args[0], args[1].to_list()));
    }
    no_method(type_, method);
  }

 private:
  std::string type_;
  std::unique_ptr<DelegateBackend> backend_;
};

class BackendDebugInfoObject final : public CustomClass {
 public:
  ops::IValue call(std::string_view method, const ops::IValueList& /*args*/) override {
    if (method == "__init__") return {};
    no_method(kDebugInfoClass, method);
  }
};

}  // namespace

std::shared_ptr<CustomClass> create_custom_class(std::string_view type_name) {
  if (type_name == kDebugInfoClass) return std::make_shared<BackendDebugInfoObject>();
  if (type_name.starts_with(kBackendPrefix)) {
    auto name = type_name.substr(kBackendPrefix.size());
    if (auto backend = create_delegate_backend(name)) {
      return std::make_shared<BackendObject>(std::string(type_name), std::move(backend));
    }
    std::string known;
    for (const auto& n : delegate_backend_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error(ErrorKind::kUnsupported,
                fmt::format("the model was lowered to the delegate backend '{}', which this "
                            "symbolite does not have (it has: {})",
                            name, known));
  }
  throw Error(ErrorKind::kUnsupported,
              fmt::format("the model creates a {}: a custom C++ class whose code is not in the "
                          "model file, and symbolite has no such class",
                          type_name));
}

}  // namespace symbolite::runtime
