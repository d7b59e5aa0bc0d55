// A kernel written for warpcert's tests around NVIDIA's Mandelbrot_kernel.cuh, read in place
// from the shared corpus (the sample's own kernels are not in the corpus). Like the sample's
// Mandelbrot0 it loops over image blocks and calls CalcMandelbrot<float> once per pixel;
// it stores the iteration count instead of a colour.
#include "../../../../shared/corpus/cuda-samples-subset/Mandelbrot_kernel.cuh"

__global__ void mandelbrotCounts(int *dst, const int imageW, const int imageH, const int crunch,
                                 const float xOff, const float yOff, const float xJP, const float yJP,
                                 const float scale, const int gridWidth, const int numBlocks,
                                 const bool isJ)
{
    for (unsigned int blockIndex = blockIdx.x; blockIndex < numBlocks; blockIndex += gridDim.x) {
        unsigned int blockX = blockIndex % gridWidth;
        unsigned int blockY = blockIndex / gridWidth;
        const int    ix     = blockDim.x * blockX + threadIdx.x;
        const int    iy     = blockDim.y * blockY + threadIdx.y;
        if ((ix < imageW) && (iy < imageH)) {
            float xPos = (float)ix * scale + xOff;
            float yPos = (float)iy * scale + yOff;
            int   m    = CalcMandelbrot<float>(xPos, yPos, xJP, yJP, crunch, isJ);
            dst[imageW * iy + ix] = m;
        }
    }
}
