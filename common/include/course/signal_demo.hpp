/// @file signal_demo.hpp
/// @brief conv1d as signal processing: a 10-tap moving average removes the high tone of a
/// two-tone signal.
#pragma once

#include "course/problems.hpp"

#include <cuda_runtime.h>

#include <iosfwd>
#include <string>
#include <vector>

namespace course {

/// Parameters of the demo signal: two tones sampled at 16 kHz for one second.
struct SignalDemo {
  double sample_rate = 16000.0;  ///< samples per second
  double low_hz = 50.0;          ///< the tone that passes
  double high_hz = 7000.0;       ///< the tone the moving average removes
  double amplitude = 1.0;        ///< amplitude of each tone
  int samples = 16000;           ///< one second
  int taps = 10;                 ///< length of the moving average
};

/// The input signal `A sin(2 pi f1 t) + A sin(2 pi f2 t)`.
std::vector<float> demo_signal(const SignalDemo& demo);

/// Gain of an @p taps-tap moving average at @p hz: |sin(pi f taps / fs) / (taps sin(pi f / fs))|.
double moving_average_gain(int taps, double hz, double sample_rate);

/// Gain of the tone at @p hz measured on the filter output @p y (the full convolution): the
/// correlation with the tone delayed by (taps - 1) / 2 samples, over a whole number of periods of
/// both tones, divided by the input amplitude.
double measured_gain(const std::vector<float>& y, const SignalDemo& demo, double hz);

/// Filters the demo signal with @p conv1d on the GPU, writes `t,input,output` rows to
/// @p csv_path, prints the measured and expected gains of both tones to @p out, and returns 0 if
/// they agree within 1e-3 (1 otherwise, 4 if the file cannot be written).
int run_signal_demo(const Conv1dLauncher& conv1d, const std::string& csv_path, cudaStream_t stream,
                    std::ostream& out);

}  // namespace course
