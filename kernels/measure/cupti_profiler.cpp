// CUPTI range profiler wrapper (see cupti_profiler.hpp). Call sequence (CUDA 13):
//   cuptiProfilerInitialize -> cuptiDeviceGetChipName -> cuptiProfilerGetCounterAvailability
//   -> cuptiProfilerHostInitialize (range profiler, chip, availability) -> ConfigAddMetrics
//   -> GetConfigImage / GetNumOfPasses -> cuptiRangeProfilerEnable(ctx)
//   -> GetCounterDataSize / CounterDataImageInitialize -> SetConfig(auto range, kernel replay)
//   -> Start, launches, Stop -> DecodeData -> GetCounterDataInfo -> per range: GetRangeInfo,
//   EvaluateToGpuValues -> Disable -> HostDeinitialize.
#include "kernels/measure/cupti_profiler.hpp"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <string>
#include <vector>

namespace tilescope::kern {

namespace {

std::string cupti_text(CUptiResult r) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    return s != nullptr ? std::string(s) : ("CUPTI error " + std::to_string(static_cast<int>(r)));
}

ProfilerFailure classify(CUptiResult r) {
    if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES) return ProfilerFailure::no_permission;
    if (r == CUPTI_ERROR_INVALID_DEVICE || r == CUPTI_ERROR_NOT_INITIALIZED) return ProfilerFailure::no_gpu;
    return ProfilerFailure::other;
}

}  // namespace

struct RangeProfiler::Impl {
    CUcontext ctx = nullptr;
    CUpti_Profiler_Host_Object* host = nullptr;
    CUpti_RangeProfiler_Object* range = nullptr;
    std::vector<uint8_t> availability;
    std::vector<uint8_t> config;
    std::vector<uint8_t> counter_data;
    bool profiler_initialized = false;
};

#define TS_CUPTI(call, what)                                                                   \
    do {                                                                                       \
        const CUptiResult r_ = (call);                                                         \
        if (r_ != CUPTI_SUCCESS) {                                                             \
            if (failure != nullptr) *failure = classify(r_);                                   \
            return make_error(std::string("CUPTI ") + (what) + ": " + cupti_text(r_) +          \
                              (r_ == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES                       \
                                   ? " (no permission to read GPU performance counters)"      \
                                   : ""));                                                     \
        }                                                                                      \
    } while (0)

Result<std::unique_ptr<RangeProfiler>> RangeProfiler::create(const std::vector<std::string>& metrics,
                                                             int max_ranges, ProfilerFailure* failure) {
    if (failure != nullptr) *failure = ProfilerFailure::none;
    std::unique_ptr<RangeProfiler> p(new RangeProfiler());
    p->impl_ = std::make_unique<Impl>();
    p->max_ranges_ = max_ranges;
    Impl& im = *p->impl_;

    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) {
        if (failure != nullptr) *failure = ProfilerFailure::no_gpu;
        return make_error("no CUDA GPU");
    }
    // cuCtxGetCurrent through the runtime's driver entry point, so that nothing links libcuda
    // directly (the binaries must start, and report "no GPU", on machines without a driver).
    using CtxGetCurrentFn = CUresult (*)(CUcontext*);
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        fn == nullptr || reinterpret_cast<CtxGetCurrentFn>(fn)(&im.ctx) != CUDA_SUCCESS || im.ctx == nullptr) {
        if (failure != nullptr) *failure = ProfilerFailure::no_gpu;
        return make_error("no current CUDA context");
    }

    CUpti_Profiler_Initialize_Params init{};
    init.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE;
    TS_CUPTI(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
    im.profiler_initialized = true;

    CUpti_Device_GetChipName_Params chip{};
    chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
    chip.deviceIndex = static_cast<size_t>(device);
    TS_CUPTI(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
    p->chip_ = chip.pChipName;

    CUpti_Profiler_GetCounterAvailability_Params avail{};
    avail.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
    avail.ctx = im.ctx;
    TS_CUPTI(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability (size)");
    im.availability.resize(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = im.availability.data();
    TS_CUPTI(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");

    CUpti_Profiler_Host_Initialize_Params hinit{};
    hinit.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
    hinit.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hinit.pChipName = p->chip_.c_str();
    hinit.pCounterAvailabilityImage = im.availability.data();
    TS_CUPTI(cuptiProfilerHostInitialize(&hinit), "cuptiProfilerHostInitialize");
    im.host = hinit.pHostObject;

    // Add metrics one at a time so an unknown one is skipped instead of failing the whole set.
    for (const std::string& m : metrics) {
        const char* name = m.c_str();
        CUpti_Profiler_Host_ConfigAddMetrics_Params add{};
    add.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
        add.pHostObject = im.host;
        add.ppMetricNames = &name;
        add.numMetrics = 1;
        if (cuptiProfilerHostConfigAddMetrics(&add) == CUPTI_SUCCESS) p->metrics_.push_back(m);
        else p->skipped_.push_back(m);
    }
    if (p->metrics_.empty()) return make_error("CUPTI: none of the requested metrics is supported on " + p->chip_);

    CUpti_Profiler_Host_GetConfigImageSize_Params csize{};
    csize.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
    csize.pHostObject = im.host;
    TS_CUPTI(cuptiProfilerHostGetConfigImageSize(&csize), "cuptiProfilerHostGetConfigImageSize");
    im.config.resize(csize.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params cimg{};
    cimg.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
    cimg.pHostObject = im.host;
    cimg.configImageSize = im.config.size();
    cimg.pConfigImage = im.config.data();
    TS_CUPTI(cuptiProfilerHostGetConfigImage(&cimg), "cuptiProfilerHostGetConfigImage");

    CUpti_Profiler_Host_GetNumOfPasses_Params np{};
    np.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE;
    np.configImageSize = im.config.size();
    np.pConfigImage = im.config.data();
    TS_CUPTI(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
    p->passes_ = np.numOfPasses;

    CUpti_RangeProfiler_Enable_Params en{};
    en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
    en.ctx = im.ctx;
    TS_CUPTI(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
    im.range = en.pRangeProfilerObject;
    return p;
}

RangeProfiler::~RangeProfiler() {
    if (!impl_) return;
    if (impl_->range != nullptr) {
        CUpti_RangeProfiler_Disable_Params dis{};
    dis.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
        dis.pRangeProfilerObject = impl_->range;
        cuptiRangeProfilerDisable(&dis);
    }
    if (impl_->host != nullptr) {
        CUpti_Profiler_Host_Deinitialize_Params hd{};
    hd.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
        hd.pHostObject = impl_->host;
        cuptiProfilerHostDeinitialize(&hd);
    }
    if (impl_->profiler_initialized) {
        CUpti_Profiler_DeInitialize_Params de{};
    de.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE;
        cuptiProfilerDeInitialize(&de);
    }
}

Result<std::vector<RangeValues>> RangeProfiler::profile(const std::function<Status()>& launch,
                                                        ProfilerFailure* failure) {
    if (failure != nullptr) *failure = ProfilerFailure::none;
    Impl& im = *impl_;
    std::vector<const char*> names;
    for (const std::string& m : metrics_) names.push_back(m.c_str());

    CUpti_RangeProfiler_GetCounterDataSize_Params cds{};
    cds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
    cds.pRangeProfilerObject = im.range;
    cds.pMetricNames = names.data();
    cds.numMetrics = names.size();
    cds.maxNumOfRanges = static_cast<size_t>(max_ranges_);
    cds.maxNumRangeTreeNodes = static_cast<uint32_t>(max_ranges_);
    TS_CUPTI(cuptiRangeProfilerGetCounterDataSize(&cds), "cuptiRangeProfilerGetCounterDataSize");
    im.counter_data.assign(cds.counterDataSize, 0);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params cdi{};
    cdi.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
    cdi.pRangeProfilerObject = im.range;
    cdi.counterDataSize = im.counter_data.size();
    cdi.pCounterData = im.counter_data.data();
    TS_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&cdi), "cuptiRangeProfilerCounterDataImageInitialize");

    CUpti_RangeProfiler_SetConfig_Params sc{};
    sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
    sc.pRangeProfilerObject = im.range;
    sc.configSize = im.config.size();
    sc.pConfig = im.config.data();
    sc.counterDataImageSize = im.counter_data.size();
    sc.pCounterDataImage = im.counter_data.data();
    sc.range = CUPTI_AutoRange;
    sc.replayMode = CUPTI_KernelReplay;
    sc.maxRangesPerPass = static_cast<size_t>(max_ranges_);
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    TS_CUPTI(cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");

    // Kernel replay: CUPTI replays each kernel for all passes inside the launch, so one
    // start/stop round normally submits every pass; the loop guards the general case.
    bool all_submitted = false;
    for (int round = 0; round < 64 && !all_submitted; ++round) {
        CUpti_RangeProfiler_Start_Params st{};
    st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
        st.pRangeProfilerObject = im.range;
        TS_CUPTI(cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
        Status ls = launch();
        const cudaError_t sync = cudaDeviceSynchronize();
        CUpti_RangeProfiler_Stop_Params sp{};
    sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
        sp.pRangeProfilerObject = im.range;
        TS_CUPTI(cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
        if (!ls) return ls.error();
        if (sync != cudaSuccess) return make_error(std::string("profiled kernels failed: ") + cudaGetErrorString(sync));
        all_submitted = sp.isAllPassSubmitted != 0;
    }
    if (!all_submitted) return make_error("CUPTI: not all profiling passes were submitted after 64 rounds");

    CUpti_RangeProfiler_DecodeData_Params dd{};
    dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
    dd.pRangeProfilerObject = im.range;
    TS_CUPTI(cuptiRangeProfilerDecodeData(&dd), "cuptiRangeProfilerDecodeData");
    if (dd.numOfRangeDropped > 0)
        return make_error("CUPTI dropped " + std::to_string(dd.numOfRangeDropped) + " ranges (more than " +
                          std::to_string(max_ranges_) + " kernels?)");

    CUpti_RangeProfiler_GetCounterDataInfo_Params info{};
    info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
    info.pCounterDataImage = im.counter_data.data();
    info.counterDataImageSize = im.counter_data.size();
    TS_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");

    std::vector<RangeValues> out;
    for (size_t i = 0; i < info.numTotalRanges; ++i) {
        RangeValues rv;
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri{};
    ri.structSize = CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE;
        ri.pCounterDataImage = im.counter_data.data();
        ri.counterDataImageSize = im.counter_data.size();
        ri.rangeIndex = i;
        ri.rangeDelimiter = "/";
        TS_CUPTI(cuptiRangeProfilerCounterDataGetRangeInfo(&ri), "cuptiRangeProfilerCounterDataGetRangeInfo");
        rv.name = ri.rangeName != nullptr ? ri.rangeName : "";
        rv.values.assign(names.size(), 0.0);
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{};
    ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
        ev.pHostObject = im.host;
        ev.pCounterDataImage = im.counter_data.data();
        ev.counterDataImageSize = im.counter_data.size();
        ev.rangeIndex = i;
        ev.ppMetricNames = names.data();
        ev.numMetrics = names.size();
        ev.pMetricValues = rv.values.data();
        TS_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
        out.push_back(std::move(rv));
    }
    return out;
}

#undef TS_CUPTI

}  // namespace tilescope::kern
