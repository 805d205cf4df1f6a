# One-word entry points. Maven never runs cargo: `native` builds the release cdylib first and
# Maven packages it from target/release into the java-bridge jar.
MVN ?= mvn -B -ntp
CARGO ?= cargo

.PHONY: all native jvm demo test test-rust test-java lint format bench-smoke clean

all: jvm

native:
	$(CARGO) build --release -p frazil-native

jvm: native
	$(MVN) -q -DskipTests install

## The main job: writes the same rows with stock Iceberg and with Frazil and compares them.
demo: jvm
	$(MVN) -q -pl java-bridge test-compile exec:exec

## All tests: Rust lint + unit/integration/doc tests, then every Java test against the release library.
test: lint test-rust test-java

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --all-targets -p frazil-native -- -D warnings

test-rust:
	$(CARGO) test --release -p frazil-native

test-java: native
	$(MVN) install

format:
	$(CARGO) fmt --all
	$(MVN) -q spotless:apply

clean:
	$(CARGO) clean
	$(MVN) -q clean
