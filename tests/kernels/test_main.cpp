// Catch2 main for the GPU tests: exits with 4 (CTest: skipped) when no CUDA GPU is present.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <cstdio>

int main(int argc, char** argv) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        std::printf("no CUDA GPU: kernel tests skipped\n");
        return 4;
    }
    return Catch::Session().run(argc, argv);
}
