// Lambda and switch forms warpcert rejects with a located error naming the construct
// (tests/clang_lambdas.rs checks the message and the line).
template <typename F>
__device__ int apply(F f, int x) { return f(x); }

__global__ void generic(int *a) {
    auto id = [](auto x) { return x; };
    a[threadIdx.x] = id(1);
}

__global__ void escapes(int *a) {
    int k = 2;
    auto twice = [k](int x) { return k * x; };
    a[threadIdx.x] = apply(twice, 3);
}

__global__ void init_capture(int *a) {
    int k = 2;
    auto f = [m = k + 1](int x) { return m * x; };
    a[threadIdx.x] = f(3);
}

__global__ void mid_break(int *a) {
    int r = 0;
    switch (threadIdx.x % 2) {
    case 0:
        if (a[0] > 0)
            break;
        r = 1;
        break;
    default:
        r = 2;
    }
    a[threadIdx.x] = r;
}

__global__ void shadowed(int *a) {
    int s = 1;
    auto f = [&s]() { return s; };
    {
        int s = 5;
        a[threadIdx.x] = f() + s;
    }
}
