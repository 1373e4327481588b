# kjudge — the two set-up commands:
#   make demo   installs what is missing, builds, judges the shipped examples on the best device
#   make test   builds and passes the tests (no GPU needed)
BUILD ?= build
JOBS ?= $(shell nproc)
CTEST_ARGS ?=

.PHONY: all deps build demo test test-fast lint format clean gpu-check

all: build

# System packages (apt-get), then CPU PyTorch into a virtual environment outside the repository
# (~/.cache/kjudge/venv, reused when present; docs/python.md) for the PyTorch baselines.
deps:
	@bash scripts/install-deps.sh
	@bash scripts/install-torch.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The quick subset for iteration: unit tests only.
test-fast: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L unit

# Style and structure (CI runs it after the tests): clang-format, the layers of src/, clang-tidy
# on the C++ files changed (scripts/lint.sh).
lint: build
	bash scripts/lint.sh $(BUILD)

# Formats every C++/CUDA file of src/ and include/ in place.
format:
	git ls-files --cached --others --exclude-standard 'src/*.cpp' 'src/*.hpp' 'src/*.h' 'src/*.cu' 'src/*.cuh' \
	  'include/*.h' 'include/*.hpp' 'include/*.cuh' | while read -r f; do [ -f "$$f" ] && clang-format -i "$$f"; done; true

gpu-check:
	bash scripts/gpu-check.sh

clean:
	rm -rf $(BUILD)
