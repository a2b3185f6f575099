// The compiled part of the Python module (`symbolite._symbolite`); symbolite/__init__.py is
// the interface users see. Failures inside a model come back as the model's own exception
// class (symbolite/_errors.py builds it from the RunError's details); every other symbolite
// failure is symbolite.Error with the message the CLI would print.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python_values.h"
#include "symbolite/backends/register_backends.h"
#include "symbolite/debuginfo/crash_log.h"
#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/debuginfo/symbolication_json.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/error.h"
#include "symbolite/version.h"

namespace py = pybind11;

namespace symbolite::python {
namespace {

// A loaded model; runs share it (the runtime allows concurrent runs of one LoadedModel), each
// with an interpreter of its own.
struct Model {
  std::string path;
  std::shared_ptr<const mobile::LoadedModel> loaded;
};

py::dict details_of(const runtime::RunErrorDetails& d) {
  py::dict out;
  out["python_class"] = d.python_class;
  out["message"] = d.message;
  out["function"] = d.function;
  out["instruction"] = d.instruction;
  out["debug_handle"] = d.handle;  // None when absent (pybind11/stl.h's optional caster)
  out["delegate_handle"] = d.delegate_handle;
  out["model_id"] = d.model_id;
  out["module_hierarchy"] = d.module_hierarchy.empty() ? py::object(py::none()) : py::str(d.module_hierarchy);
  out["traceback"] = d.traceback.empty() ? py::object(py::none()) : py::str(d.traceback);
  return out;
}

py::object run_method(const Model& model, const std::string& name, const py::args& args) {
  std::vector<ops::IValue> inputs;
  for (py::handle arg : args) inputs.push_back(to_ivalue(arg));
  ops::IValue result;
  try {
    py::gil_scoped_release unlocked;  // the run touches no Python object
    runtime::Interpreter interpreter(*model.loaded);
    result = interpreter.run_method(name, std::move(inputs));
  } catch (const runtime::RunError& e) {
    // Raises the model's exception class (throws error_already_set back to Python).
    py::module_::import("symbolite._errors").attr("raise_model_error")(details_of(e.details()),
                                                                          std::string(e.what()));
    throw;  // not reached: raise_model_error always raises
  }
  return to_python(result);
}

// Symbolications as the CLI's `symbolicate --json` gives them, as JSON text (symbolite/
// __init__.py wraps each in a Symbolication object).
std::string symbolicate_json(const std::string& path, const std::vector<std::int64_t>& handles) {
  std::shared_ptr<const debuginfo::DebugInfoSource> sidecar;
  std::unique_ptr<mobile::ModelInfo> info;
  if (path.ends_with(".symdbg")) {
    sidecar = debuginfo::SidecarReader::open(path);
  } else {
    info = std::make_unique<mobile::ModelInfo>(mobile::ModelInfo::load(path));
  }
  debuginfo::Symbolicator symbolicator = sidecar ? debuginfo::Symbolicator(sidecar)
                                                 : info->symbolicator();
  nlohmann::json out = nlohmann::json::array();
  for (std::int64_t handle : handles) out.push_back(debuginfo::to_json(symbolicator.symbolicate(handle)));
  return out.dump();
}

py::list find_handles(const std::string& text) {
  py::list out;
  for (const auto& mention : debuginfo::find_handle_mentions(text)) {
    py::dict m;
    m["line"] = mention.line;
    m["offset"] = mention.offset;
    m["handles"] = mention.handles;
    out.append(std::move(m));
  }
  return out;
}

}  // namespace
}  // namespace symbolite::python

PYBIND11_MODULE(_symbolite, m) {
  using namespace symbolite;
  using symbolite::python::Model;
  m.doc() = "symbolite's compiled core; use the symbolite package.";
  backends::register_delegate_backends();

  static py::exception<Error> error_class(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      py::object exc = py::handle(error_class.ptr())(std::string(e.what()));
      exc.attr("kind") = std::string(to_string(e.kind()));
      PyErr_SetObject(error_class.ptr(), exc.ptr());
    }
  });

  py::class_<Model>(m, "Model")
      .def_readonly("path", &Model::path)
      .def_property_readonly("methods", [](const Model& model) { return model.loaded->method_names(); })
      .def("run_method", &symbolite::python::run_method, py::arg("name"));

  m.def("load", [](const std::string& path) {
    auto loaded = std::make_shared<const mobile::LoadedModel>(mobile::LoadedModel::load(path));
    return Model{path, std::move(loaded)};
  }, py::arg("path"));
  m.def("symbolicate_json", &symbolite::python::symbolicate_json, py::arg("path"), py::arg("handles"));
  m.def("find_handles", &symbolite::python::find_handles, py::arg("text"));
  m.def("version", [] { return std::string(symbolite::version()); });
}
