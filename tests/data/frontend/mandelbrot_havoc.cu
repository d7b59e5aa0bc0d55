// A kernel written for warpcert's tests (issue 15): the control shape of the Mandelbrot wrapper
// (tests/data/frontend/mandelbrot_wrapper.cu, the sample's block loop around one call per
// pixel) with a per-pixel function shaped like NVIDIA's unrolled CalcMandelbrot loop (rounds of
// 20 escape checks that `return`, `do ... while (1)` over rounds, the countdown `i -= 20` and
// `(i <= 0) || escape` as the 20th check), but no float recurrence: a pixel escapes at the
// check whose return value equals its input `esc[pixel]`, so every lane's escape iteration is
// free input ("havoc"). A pixel with `esc` never met runs until `i <= 0`.
//
// Hand maxima of divwarps for one warp that runs every block (grid 1), crunch = 20R (R
// rounds; tests/mandelbrot_havoc.rs derives them): a block of n active lanes splits at most
// n - 1 times at the escape checks and at most R - 1 times at the loop test; a block the image
// edge cuts adds the split of `ix < imageW`.
__device__ int havocPixel(const int e, const int crunch)
{
    int i = crunch;

    do {
        // check 1
        if (e == i - 1)
            return i - 1;

        // check 2
        if (e == i - 2)
            return i - 2;

        // check 3
        if (e == i - 3)
            return i - 3;

        // check 4
        if (e == i - 4)
            return i - 4;

        // check 5
        if (e == i - 5)
            return i - 5;

        // check 6
        if (e == i - 6)
            return i - 6;

        // check 7
        if (e == i - 7)
            return i - 7;

        // check 8
        if (e == i - 8)
            return i - 8;

        // check 9
        if (e == i - 9)
            return i - 9;

        // check 10
        if (e == i - 10)
            return i - 10;

        // check 11
        if (e == i - 11)
            return i - 11;

        // check 12
        if (e == i - 12)
            return i - 12;

        // check 13
        if (e == i - 13)
            return i - 13;

        // check 14
        if (e == i - 14)
            return i - 14;

        // check 15
        if (e == i - 15)
            return i - 15;

        // check 16
        if (e == i - 16)
            return i - 16;

        // check 17
        if (e == i - 17)
            return i - 17;

        // check 18
        if (e == i - 18)
            return i - 18;

        // check 19
        if (e == i - 19)
            return i - 19;

        // check 20
        i -= 20;

        if ((i <= 0) || (e == i))
            return i;
    } while (1);
}

__global__ void mandelbrotHavoc(int *dst, const int *esc, const int imageW, const int imageH,
                                const int crunch, const int gridWidth, const int numBlocks)
{
    for (unsigned int blockIndex = blockIdx.x; blockIndex < numBlocks; blockIndex += gridDim.x) {
        unsigned int blockX = blockIndex % gridWidth;
        unsigned int blockY = blockIndex / gridWidth;
        const int    ix     = blockDim.x * blockX + threadIdx.x;
        const int    iy     = blockDim.y * blockY + threadIdx.y;
        if ((ix < imageW) && (iy < imageH)) {
            const int px = imageW * iy + ix;
            int       m  = havocPixel(esc[px], crunch);
            dst[px]      = m;
        }
    }
}
