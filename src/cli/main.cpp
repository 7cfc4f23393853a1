#include <CLI/CLI.hpp>
#include <iostream>

#include "budcore/c/version.h"

int main(int argc, char** argv) {
  CLI::App app{"budcore: control-plane core for GPU platforms"};
  app.set_version_flag("--version", std::string("budcore ") + BUDCORE_VERSION_STRING);
  app.require_subcommand(0);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
