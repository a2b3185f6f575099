// The compiled part of the Python module (`symbolite._symbolite`); symbolite/__init__.py is
// the interface users see. Failures inside a model come back as the model's own exception
// class (symbolite/_errors.py builds it from the RunError's details); every other symbolite
// failure is symbolite.Error with the message the CLI would print.
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "profile_result.h"
#include "python_values.h"
#include "symbolite/backends/register_backends.h"
#include "symbolite/debuginfo/crash_log.h"
#include "symbolite/debuginfo/symbolication_json.h"
#include "symbolite/mobile/attach_sidecar.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/mobile/model_split.h"
#include "symbolite/mobile/symbolication_target.h"
#include "symbolite/profiler/op_event.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/runtime/run_error.h"
#include "symbolite/support/error.h"
#include "symbolite/support/parallel_for.h"
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
  out["module_hierarchy"] =
      d.module_hierarchy.empty() ? py::object(py::none()) : py::str(d.module_hierarchy);
  out["traceback"] = d.traceback.empty() ? py::object(py::none()) : py::str(d.traceback);
  return out;
}

std::vector<ops::IValue> to_ivalues(const py::args& args);

py::object run_method(const Model& model, const std::string& name, const py::args& args) {
  std::vector<ops::IValue> inputs = to_ivalues(args);
  ops::IValue result;
  try {
    py::gil_scoped_release unlocked;  // the run touches no Python object
    runtime::Interpreter interpreter(*model.loaded);
    result = interpreter.run_method(name, std::move(inputs));
  } catch (const runtime::RunError& e) {
    // Raises the model's exception class (throws error_already_set back to Python).
    py::module_::import("symbolite._errors")
        .attr("raise_model_error")(details_of(e.details()), std::string(e.what()));
    throw;  // not reached: raise_model_error always raises
  }
  return to_python(result);
}

std::vector<ops::IValue> to_ivalues(const py::args& args) {
  std::vector<ops::IValue> inputs;
  for (py::handle arg : args) inputs.push_back(to_ivalue(arg));
  return inputs;
}

std::unique_ptr<ProfileResult> profile_method(const Model& model, const py::args& args,
                                              const ProfileOptions& options) {
  std::vector<ops::IValue> inputs = to_ivalues(args);
  try {
    py::gil_scoped_release unlocked;
    return std::make_unique<ProfileResult>(model.loaded, inputs, options);
  } catch (const runtime::RunError& e) {
    py::module_::import("symbolite._errors")
        .attr("raise_model_error")(details_of(e.details()), std::string(e.what()));
    throw;
  }
}

// Debug info opened once (a model's or a sidecar's) for any number of symbolications.
struct DebugInfo {
  std::string path;
  std::shared_ptr<const mobile::SymbolicationTarget> target;
};

// Symbolications as the CLI's `symbolicate --json` gives them, as JSON text (symbolite/
// __init__.py wraps each in a Symbolication object).
std::string symbolicate_json(const DebugInfo& info, const std::vector<std::int64_t>& handles) {
  nlohmann::json out = nlohmann::json::array();
  {
    py::gil_scoped_release unlocked;
    for (std::int64_t handle : handles)
      out.push_back(debuginfo::to_json(info.target->symbolicate(handle)));
  }
  return out.dump();
}

// As `symbolite symbolicate --debug SIDECAR - --json` for `text` on stdin: each handle once, at
// its first mention, with the log line and how often the text names it.
std::string symbolicate_log_json(const DebugInfo& info, const std::string& text) {
  nlohmann::json out = nlohmann::json::array();
  {
    py::gil_scoped_release unlocked;
    for (const auto& h : debuginfo::log_handles(text).handles) {
      nlohmann::json r = debuginfo::to_json(info.target->symbolicate(h.handle));
      r["log_line"] = h.line;
      r["mentions"] = h.mentions;
      out.push_back(std::move(r));
    }
  }
  return out.dump();
}

// `symbolite split`: the stripped model and the sidecar, as its --json summary.
py::dict split(const std::string& model, const std::string& out, const std::string& debug) {
  namespace fs = std::filesystem;
  const fs::path paths[] = {fs::weakly_canonical(model), fs::weakly_canonical(out),
                            fs::weakly_canonical(debug)};
  if (paths[0] == paths[1] || paths[0] == paths[2] || paths[1] == paths[2]) {
    throw Error(ErrorKind::kUsage,
                fmt::format("split {}: the model, the stripped model ({}) and the "
                            "sidecar ({}) must be three different files",
                            model, out, debug));
  }
  mobile::SplitResult r;
  {
    py::gil_scoped_release unlocked;
    r = mobile::split_model(model, out, debug);
  }
  py::dict result;
  result["model_id"] = to_hex(r.model_id);
  result["model_size"] = r.model_size;
  result["stripped_size"] = r.stripped_size;
  result["removed_records"] = r.removed_records;
  result["debug_record_bytes"] = r.debug_record_bytes;
  result["sidecar_size"] = r.sidecar_size;
  return result;
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
  using symbolite::python::DebugInfo;
  using symbolite::python::Model;
  using symbolite::python::ProfileOptions;
  using symbolite::python::ProfileResult;
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
      .def_property_readonly("methods",
                             [](const Model& model) { return model.loaded->method_names(); })
      .def_property_readonly("model_id",
                             [](const Model& model) { return to_hex(model.loaded->model_id()); })
      .def_property_readonly("has_call_stacks",
                             [](const Model& model) { return model.loaded->debug != nullptr; })
      .def("run_method", &symbolite::python::run_method, py::arg("name"))
      .def(
          "profile",
          [](const Model& model, const std::string& method, int runs, int warmup,
             std::uint32_t details, const py::args& args) {
            return symbolite::python::profile_method(model, args,
                                                     ProfileOptions{method, runs, warmup, details});
          },
          py::arg("method"), py::arg("runs"), py::arg("warmup"), py::arg("details"));

  py::class_<ProfileResult>(m, "ProfileResult")
      .def_property_readonly("events", &ProfileResult::events)
      .def_property_readonly("runs", [](const ProfileResult& p) { return p.options().runs; })
      .def_property_readonly("method", [](const ProfileResult& p) { return p.options().method; })
      .def_property_readonly("has_call_stacks", &ProfileResult::has_call_stacks)
      .def("operators_json", &ProfileResult::operators_json, py::arg("sort"),
           py::arg("by_input_shapes"), py::arg("by_name"))
      .def("module_tree_json", &ProfileResult::module_tree_json)
      .def("chrome_trace_json", &ProfileResult::chrome_trace_json)
      .def("folded_stacks", &ProfileResult::folded_stacks);
  m.attr("DETAIL_SHAPES") = static_cast<std::uint32_t>(profiler::kDetailShapes);
  m.attr("DETAIL_FLOPS") = static_cast<std::uint32_t>(profiler::kDetailFlops);
  m.attr("DETAIL_MEMORY") = static_cast<std::uint32_t>(profiler::kDetailMemory);

  py::class_<DebugInfo>(m, "DebugInfo")
      .def_readonly("path", &DebugInfo::path)
      .def_property_readonly("model_id",
                             [](const DebugInfo& d) { return to_hex(d.target->model_id()); })
      .def("symbolicate_json", &symbolite::python::symbolicate_json, py::arg("handles"))
      .def("symbolicate_log_json", &symbolite::python::symbolicate_log_json, py::arg("text"));

  m.def(
      "load",
      [](const std::string& path, const std::optional<std::string>& debug) {
        mobile::LoadedModel loaded;
        {
          py::gil_scoped_release unlocked;
          loaded = mobile::LoadedModel::load(path);
          if (debug) mobile::attach_sidecar(loaded, *debug);
        }
        return Model{path, std::make_shared<const mobile::LoadedModel>(std::move(loaded))};
      },
      py::arg("path"), py::arg("debug") = py::none());
  m.def(
      "open_debug_info",
      [](const std::string& path) {
        py::gil_scoped_release unlocked;
        return DebugInfo{path, std::make_shared<const mobile::SymbolicationTarget>(
                                   mobile::SymbolicationTarget::open(path))};
      },
      py::arg("path"));
  m.def("split", &symbolite::python::split, py::arg("model"), py::arg("out"), py::arg("debug"));
  m.def("find_handles", &symbolite::python::find_handles, py::arg("text"));
  m.def("version", [] { return std::string(symbolite::version()); });
  m.def("threads", &symbolite::intra_op_threads);
  m.def("set_threads", &symbolite::set_intra_op_threads, py::arg("threads"));
}
