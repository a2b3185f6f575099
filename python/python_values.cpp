#include "python_values.h"

#include <cstring>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "symbolite/support/error.h"

namespace py = pybind11;

namespace symbolite::python {
namespace {

using tensor::DType;

// numpy's one-character type codes for the dtypes both sides have.
DType dtype_of_array(const py::array& a) {
  switch (a.dtype().kind()) {
    case 'f':
      if (a.itemsize() == 4) return DType::kFloat32;
      if (a.itemsize() == 8) return DType::kFloat64;
      if (a.itemsize() == 2) return DType::kFloat16;
      break;
    case 'i':
      if (a.itemsize() == 8) return DType::kInt64;
      if (a.itemsize() == 4) return DType::kInt32;
      if (a.itemsize() == 2) return DType::kInt16;
      if (a.itemsize() == 1) return DType::kInt8;
      break;
    case 'u':
      if (a.itemsize() == 1) return DType::kUInt8;
      break;
    case 'b':
      return DType::kBool;
    default:
      break;
  }
  throw Error(ErrorKind::kUsage,
              "numpy arrays of dtype " + py::str(a.dtype()).cast<std::string>() +
                  " have no TorchScript counterpart (float16/32/64, int8/16/32/64, uint8, bool)");
}

py::dtype numpy_dtype(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return py::dtype("float32");
    case DType::kFloat64:
      return py::dtype("float64");
    case DType::kInt64:
      return py::dtype("int64");
    case DType::kInt32:
      return py::dtype("int32");
    case DType::kInt16:
      return py::dtype("int16");
    case DType::kInt8:
      return py::dtype("int8");
    case DType::kUInt8:
      return py::dtype("uint8");
    case DType::kBool:
      return py::dtype("bool");
    case DType::kFloat16:
      return py::dtype("float16");
    case DType::kBFloat16:
      break;
  }
  throw Error(ErrorKind::kUnsupported, "bfloat16 tensors have no numpy dtype");
}

tensor::Tensor tensor_of_array(const py::array& any) {
  auto a = py::array::ensure(any, py::array::c_style);
  if (!a) throw py::error_already_set();
  std::vector<std::int64_t> sizes(a.shape(), a.shape() + a.ndim());
  auto bytes = static_cast<std::size_t>(a.nbytes());
  tensor::Storage storage = tensor::Storage::allocate_uninitialized(bytes);
  if (bytes > 0) std::memcpy(storage.mutable_data(), a.data(), bytes);
  std::vector<std::int64_t> strides = tensor::contiguous_strides(sizes);
  return tensor::Tensor::from_storage(std::move(storage), dtype_of_array(a), std::move(sizes),
                                      std::move(strides), 0);
}

py::array array_of_tensor(const tensor::Tensor& t0) {
  tensor::Tensor t = t0.contiguous();
  std::vector<py::ssize_t> shape(t.sizes().begin(), t.sizes().end());
  py::array out(numpy_dtype(t.dtype()), shape);
  if (t.nbytes() > 0) std::memcpy(out.mutable_data(), t.raw_data(), t.nbytes());
  return out;
}

}  // namespace

ops::IValue to_ivalue(py::handle value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>();
  if (py::isinstance<py::int_>(value)) return value.cast<std::int64_t>();
  if (py::isinstance<py::float_>(value)) return value.cast<double>();
  if (py::isinstance<py::str>(value)) return ops::IValue::string(value.cast<std::string>());
  if (py::isinstance<py::array>(value)) return tensor_of_array(value.cast<py::array>());
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    ops::IValueList items;
    for (py::handle item : value) items.push_back(to_ivalue(item));
    return py::isinstance<py::list>(value) ? ops::IValue::list(std::move(items))
                                           : ops::IValue::tuple(std::move(items));
  }
  if (py::isinstance<py::dict>(value)) {
    auto dict = std::make_shared<ops::Dict>();
    for (auto [k, v] : value.cast<py::dict>()) dict->items.emplace_back(to_ivalue(k), to_ivalue(v));
    return ops::IValue::dict(std::move(dict));
  }
  // numpy scalars (np.float32(1.5)) as Python scalars; torch.Tensor and other array-likes
  // through numpy.
  auto numpy = py::module_::import("numpy");
  if (py::isinstance(value, numpy.attr("generic"))) return to_ivalue(value.attr("item")());
  if (py::hasattr(value, "__array__")) return tensor_of_array(numpy.attr("asarray")(value));
  throw Error(ErrorKind::kUsage,
              "cannot pass a value of type " +
                  py::str(value.get_type().attr("__name__")).cast<std::string>() +
                  " to a model (numpy arrays, bool, int, float, str, None, "
                  "lists, tuples and dicts of them)");
}

py::object to_python(const ops::IValue& value) {
  using Kind = ops::IValue::Kind;
  switch (value.kind()) {
    case Kind::kNone:
      return py::none();
    case Kind::kBool:
      return py::bool_(value.to_bool());
    case Kind::kInt:
      return py::int_(value.to_int());
    case Kind::kDouble:
      return py::float_(value.to_double());
    case Kind::kString:
      return py::str(value.to_string());
    case Kind::kDevice:
      return py::str(value.to_device());
    case Kind::kTensor:
      return array_of_tensor(value.to_tensor());
    case Kind::kList: {
      py::list out;
      for (const auto& item : value.to_list()) out.append(to_python(item));
      return out;
    }
    case Kind::kTuple: {
      const auto& items = value.to_tuple();
      py::tuple out(items.size());
      for (std::size_t i = 0; i < items.size(); ++i) out[i] = to_python(items[i]);
      return out;
    }
    case Kind::kDict: {
      py::dict out;
      for (const auto& [k, v] : value.to_dict().items) {
        if (k.is(Kind::kTensor)) {
          throw Error(ErrorKind::kUnsupported,
                      "a dict keyed by tensors cannot be returned to Python");
        }
        out[to_python(k)] = to_python(v);
      }
      return out;
    }
    case Kind::kObject:
      throw Error(ErrorKind::kUnsupported, "the model returned an object of class " +
                                               value.to_object().type_name +
                                               ", which has no Python counterpart");
  }
  return py::none();
}

}  // namespace symbolite::python
