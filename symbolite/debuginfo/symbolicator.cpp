#include "symbolite/debuginfo/symbolicator.h"

#include <fmt/format.h>

#include "symbolite/debuginfo/context_printer.h"
#include "symbolite/debuginfo/module_hierarchy.h"
#include "symbolite/support/printable_text.h"

namespace symbolite::debuginfo {
namespace {

// PyTorch's placeholder where it does not know the top method's name.
constexpr std::string_view kUnknownFunction = "<unknown>";

// "__torch__.Top.forward" -> "forward".
std::string short_function_name(std::string_view qualified) {
  auto dot = qualified.rfind('.');
  return std::string(dot == std::string_view::npos ? qualified : qualified.substr(dot + 1));
}

std::string unknown_range_note(const Frame& frame) {
  std::string what = frame.callee.empty()
                         ? fmt::format("the node itself (in '{}')", frame.function)
                         : fmt::format("the call from '{}' into {}", frame.function, frame.callee);
  if (frame.range_tag == kNoSourceRangeTag) {
    return fmt::format(
        "{} has no source: PyTorch serialized source-range tag -1 for it (PyTorch 1.13's code "
        "printer drops the ranges of subscripted inlined expressions such as `x.shape[0]` or "
        "`f(x)[1]`; PyTorch itself then drops this frame or refuses to load the file)",
        what);
  }
  return fmt::format(
      "{} has no source: source-range tag {} is in no debug_pkl record of the "
      "archive",
      what, frame.range_tag);
}

void render_unknown_frame(std::string& out, const Frame& frame) {
  out +=
      fmt::format("  File \"<unknown>\", in {}\n    <source unknown: {}>\n", frame.function,
                  frame.range_tag == kNoSourceRangeTag
                      ? std::string("PyTorch recorded no source range (tag -1)")
                      : fmt::format("source-range tag {} not in any debug_pkl", frame.range_tag));
}

}  // namespace

std::string_view to_string(SymbolicationStatus status) {
  switch (status) {
    case SymbolicationStatus::kOk:
      return "ok";
    case SymbolicationStatus::kPartial:
      return "partial";
    case SymbolicationStatus::kNotFound:
      return "not_found";
  }
  return "?";
}

std::string short_type_name(std::string_view qualified) {
  auto dot = qualified.rfind('.');
  return std::string(dot == std::string_view::npos ? qualified : qualified.substr(dot + 1));
}

Symbolicator::Symbolicator(std::shared_ptr<const DebugInfoSource> source)
    : source_(std::move(source)),
      top_type_short_(single_line(short_type_name(source_->top_module_type()))) {}

Symbolication Symbolicator::resolve_in(DebugHandle handle, bool render_traceback,
                                       std::string_view outer_function) const {
  Symbolication result;
  result.handle = handle;
  result.site = source_->site_of(handle);
  if (result.site) result.site->function = single_line(result.site->function);
  std::optional<DebugInfo> info = source_->find(handle);
  if (!info) {
    explain_missing(result);
    return result;
  }
  result.op = single_line(info->node_kind);  // names from the file stay on one line

  // Walk the call chain: each call site belongs to the function that made the call, and
  // the node itself belongs to the innermost function called.
  std::string function = result.site              ? short_function_name(result.site->function)
                         : outer_function.empty() ? std::string(kUnknownFunction)
                                                  : std::string(outer_function);
  std::string& hierarchy = result.module_hierarchy;
  hierarchy.reserve(128);
  hierarchy += "top(";
  hierarchy += top_type_short_;
  hierarchy += ")::";
  hierarchy += function;
  for (const InlinedCallStack* call = info->call_stack.get(); call != nullptr;
       call = call->callee().get()) {
    std::size_t callee_start = hierarchy.size() + 1;
    hierarchy += '.';
    append_instance_label(hierarchy, call->module_instance());
    hierarchy += "::";
    hierarchy += single_line(call->function_name());
    std::string callee = hierarchy.substr(callee_start);
    result.frames.push_back(
        Frame{std::move(function), call->callsite(), call->callsite_tag(), std::move(callee)});
    function = single_line(call->function_name());
  }
  result.frames.push_back(Frame{std::move(function), info->range, info->range_tag, {}});
  hierarchy += '.';
  hierarchy += result.op;

  result.status = SymbolicationStatus::kOk;
  if (render_traceback) result.traceback = "Traceback of TorchScript (most recent call last):\n";
  for (const Frame& frame : result.frames) {
    if (frame.range.known()) {
      if (render_traceback) print_with_context(result.traceback, frame.range, frame.function);
    } else {
      result.status = SymbolicationStatus::kPartial;
      if (render_traceback) render_unknown_frame(result.traceback, frame);
      result.notes.push_back(unknown_range_note(frame));
    }
  }
  if (!result.site) {
    result.notes.push_back(fmt::format(
        "handle {} is in the call-stack map but no bytecode instruction carries it; the top "
        "method's name is unknown",
        handle));
  }
  return result;
}

void Symbolicator::explain_missing(Symbolication& result) const {
  const DebugHandle handle = result.handle;
  if (handle == kInvalidDebugHandle) {
    result.notes.emplace_back(
        "-1 is PyTorch's 'no debug handle' sentinel: the instruction was emitted without a "
        "source node, so there is nothing to symbolicate");
    return;
  }
  const HandleStats stats = source_->handle_stats();
  if (!source_->has_call_stacks() || stats.count == 0) {
    std::string where = result.site ? fmt::format(" (handle {} is instruction {} of {})", handle,
                                                  result.site->instruction, result.site->function)
                                    : std::string();
    result.notes.push_back(fmt::format(
        "the model carries no debug info (no callstack_debug_map.pkl): it was saved without "
        "debug info or stripped{}; symbolicate with the full model or its sidecar",
        where));
    return;
  }
  std::string note = fmt::format("handle {} is not in the debug table ({} handles, {}..{})", handle,
                                 stats.count, stats.min, stats.max);
  if (result.site) {
    note += fmt::format("; it is instruction {} of {}, but the call-stack map has no row for it",
                        result.site->instruction, result.site->function);
  }
  result.notes.push_back(std::move(note));
}

Symbolication Symbolicator::symbolicate_delegated(DebugHandle instruction,
                                                  DebugHandle backend) const {
  Symbolication outer = symbolicate(instruction);
  // The backend node belongs to the lowered method, the function the `execute` call is in
  // (PyTorch prints `<unknown>` there).
  Symbolication inner = resolve_in(
      backend, true, outer.frames.empty() ? std::string_view() : outer.frames.back().function);
  Symbolication result;
  result.handle = backend;
  result.op = inner.op;
  result.site = outer.site;
  if (outer.status == SymbolicationStatus::kNotFound ||
      inner.status == SymbolicationStatus::kNotFound) {
    result.notes = outer.notes;
    result.notes.insert(result.notes.end(), inner.notes.begin(), inner.notes.end());
    return result;
  }
  result.status =
      outer.status == SymbolicationStatus::kOk && inner.status == SymbolicationStatus::kOk
          ? SymbolicationStatus::kOk
          : SymbolicationStatus::kPartial;
  std::string prefix = outer.module_hierarchy;
  if (prefix.ends_with(outer.op)) prefix.resize(prefix.size() - outer.op.size());
  auto top_end = inner.module_hierarchy.find('.');
  result.module_hierarchy =
      prefix + (top_end == std::string::npos ? inner.module_hierarchy
                                             : inner.module_hierarchy.substr(top_end + 1));
  result.frames = outer.frames;
  result.frames.insert(result.frames.end(), inner.frames.begin(), inner.frames.end());
  std::string head = outer.traceback;
  while (!head.empty() && (head.back() == '\n' || head.back() == ' ')) head.pop_back();
  auto header_end = inner.traceback.find('\n');
  result.traceback =
      head + "\n" +
      (header_end == std::string::npos ? std::string() : inner.traceback.substr(header_end + 1));
  result.notes = outer.notes;
  for (const auto& note : inner.notes) {
    // A backend handle is never an instruction's: that note says nothing here.
    if (note.find("no bytecode instruction carries it") == std::string::npos) {
      result.notes.push_back(note);
    }
  }
  result.notes.push_back(
      fmt::format("backend handle {} of the delegate called at instruction "
                  "handle {}",
                  backend, instruction));
  if (inner.site) {
    result.notes.push_back(fmt::format(
        "handle {} is carried by instruction {} of {}: an instruction's handle, not a backend "
        "node's, so this composition is probably not what PyTorch reported",
        backend, inner.site->instruction, inner.site->function));
  }
  return result;
}

}  // namespace symbolite::debuginfo
