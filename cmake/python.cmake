# kjudge-worker-py: the worker that embeds CPython for PyTorch references, baselines and Python
# candidates (docs/python.md). Built only where FindPython3 finds the embedding files.
#
# Which Python: -DPython3_EXECUTABLE=... (e.g. /opt/torch/.venv/bin/python3 on the GPU machine),
# else $KJUDGE_PYTHON, else the venv of scripts/install-torch.sh when it exists, else python3 on
# PATH. A venv's interpreter leads FindPython3 to the base installation's libpython; the worker
# then starts that libpython with the venv's python3 so that the venv's site-packages (torch)
# are importable. The same python3 is the default at run time (KJUDGE_PYTHON overrides).
option(KJUDGE_PYTHON_WORKER "Build kjudge-worker-py when Python's embedding files are found" ON)
if(NOT KJUDGE_PYTHON_WORKER)
  return()
endif()
if(NOT Python3_EXECUTABLE)
  if(DEFINED ENV{KJUDGE_PYTHON} AND EXISTS "$ENV{KJUDGE_PYTHON}")
    set(Python3_EXECUTABLE "$ENV{KJUDGE_PYTHON}")
  elseif(DEFINED ENV{KJUDGE_VENV} AND EXISTS "$ENV{KJUDGE_VENV}/bin/python3")
    set(Python3_EXECUTABLE "$ENV{KJUDGE_VENV}/bin/python3")
  elseif(EXISTS "$ENV{HOME}/.cache/kjudge/venv/bin/python3")
    set(Python3_EXECUTABLE "$ENV{HOME}/.cache/kjudge/venv/bin/python3")
  endif()
endif()
find_package(Python3 COMPONENTS Interpreter Development.Embed)
if(NOT Python3_Development.Embed_FOUND)
  message(STATUS "kjudge: Python embedding files not found; kjudge-worker-py is not built")
  return()
endif()
message(STATUS "kjudge: kjudge-worker-py embeds Python ${Python3_VERSION} (${Python3_EXECUTABLE})")

# The glue module is compiled into the binary: nothing a party can reach on disk is loaded.
set(_py_src "${CMAKE_SOURCE_DIR}/src/python/kjudge_host.py")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_py_src}")
file(READ "${_py_src}" KJ_HOST_PY)
file(WRITE "${CMAKE_BINARY_DIR}/generated/kjudge_host_py.cpp.tmp"
  "namespace kjudge::py { extern const char* const kjudge_host_source; const char* const kjudge_host_source = R\"KJPY(${KJ_HOST_PY})KJPY\"; }\n")
configure_file("${CMAKE_BINARY_DIR}/generated/kjudge_host_py.cpp.tmp"
               "${CMAKE_BINARY_DIR}/generated/kjudge_host_py.cpp" COPYONLY)

add_executable(kjudge-worker-py src/python/py_main.cpp src/python/py_host.cpp
               "${CMAKE_BINARY_DIR}/generated/kjudge_host_py.cpp")
kj_layer_links(kjudge-worker-py python)  # src/layers.txt
target_link_libraries(kjudge-worker-py PRIVATE Python3::Python)
target_link_options(kjudge-worker-py PRIVATE ${KJ_WORKER_LINK_OPTIONS})
set_target_properties(kjudge-worker-py PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
# The controller's default interpreter for Python parties (KJUDGE_PYTHON overrides at run time).
target_compile_definitions(kj_settings INTERFACE KJUDGE_PYTHON_DEFAULT="${Python3_EXECUTABLE}")
if(TARGET kjudge)
  add_dependencies(kjudge kjudge-worker-py)
endif()
