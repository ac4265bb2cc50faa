#include "course/signal_demo.hpp"

#include "course/cli.hpp"
#include "course/cuda_check.hpp"
#include "course/device_buffer.hpp"

#include <cmath>
#include <fstream>
#include <ostream>

namespace course {
namespace {

constexpr double kPi = 3.14159265358979323846;
// Both tones complete a whole number of periods in this many samples at 16 kHz:
// 50 Hz every 320 samples, 7 kHz every 16/7 samples (140 periods in 320).
constexpr int kCommonPeriodSamples = 320;
constexpr double kGainTolerance = 1e-3;

}  // namespace

std::vector<float> demo_signal(const SignalDemo& demo) {
  std::vector<float> signal(static_cast<std::size_t>(demo.samples));
  for (int i = 0; i < demo.samples; ++i) {
    const double t = i / demo.sample_rate;
    signal[i] = static_cast<float>(demo.amplitude * std::sin(2 * kPi * demo.low_hz * t) +
                                   demo.amplitude * std::sin(2 * kPi * demo.high_hz * t));
  }
  return signal;
}

double moving_average_gain(int taps, double hz, double sample_rate) {
  const double x = kPi * hz / sample_rate;
  if (std::fabs(std::sin(x)) < 1e-12)
    return 1.0;
  return std::fabs(std::sin(taps * x) / (taps * std::sin(x)));
}

double measured_gain(const std::vector<float>& y, const SignalDemo& demo, double hz) {
  const int first = demo.taps - 1;  // the first output that sees a full window
  const int periods = (demo.samples - first) / kCommonPeriodSamples;
  const int count = periods * kCommonPeriodSamples;
  const double delay = (demo.taps - 1) / 2.0;
  double in_phase = 0;
  double quadrature = 0;
  for (int i = first; i < first + count; ++i) {
    const double phase = 2 * kPi * hz * (i - delay) / demo.sample_rate;
    in_phase += y[i] * std::sin(phase);
    quadrature += y[i] * std::cos(phase);
  }
  return 2.0 * std::hypot(in_phase, quadrature) / count / demo.amplitude;
}

int run_signal_demo(const Conv1dLauncher& conv1d, const std::string& csv_path, cudaStream_t stream,
                    std::ostream& out) {
  const SignalDemo demo;
  const std::vector<float> signal = demo_signal(demo);
  const std::vector<float> average(static_cast<std::size_t>(demo.taps), 1.0f / demo.taps);
  DeviceBuffer<float> a(signal, "the demo signal");
  DeviceBuffer<float> b(average, "the moving average");
  DeviceBuffer<float> y(signal.size() + average.size() - 1, "the filtered signal");
  y.poison();
  conv1d(a.data(), demo.samples, b.data(), demo.taps, y.data(), stream);
  COURSE_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<float> filtered = y.download();

  std::ofstream file(csv_path);
  file << "t_seconds,input,output\n";
  for (std::size_t i = 0; i < filtered.size(); ++i) {
    file << i / demo.sample_rate << ",";
    if (i < signal.size())
      file << signal[i];
    file << "," << filtered[i] << "\n";
  }
  file.close();
  if (!file) {
    out << "error: could not write " << csv_path << "\n";
    return kExitError;
  }

  bool agree = true;
  out << "conv1d demo: " << demo.taps << "-tap moving average of " << demo.low_hz << " Hz + "
      << demo.high_hz << " Hz sampled at " << demo.sample_rate << " Hz\n";
  for (double hz : {demo.low_hz, demo.high_hz}) {
    const double gain = measured_gain(filtered, demo, hz);
    const double expected = moving_average_gain(demo.taps, hz, demo.sample_rate);
    agree = agree && std::fabs(gain - expected) <= kGainTolerance;
    out << "  " << hz << " Hz: measured gain " << gain << ", expected " << expected << "\n";
  }
  out << "wrote " << filtered.size() << " rows to " << csv_path << "\n"
      << (agree ? "PASS" : "FAIL") << ": measured gains " << (agree ? "match" : "differ from")
      << " the moving average's response\n";
  return agree ? kExitPass : kExitCheckFailed;
}

}  // namespace course
