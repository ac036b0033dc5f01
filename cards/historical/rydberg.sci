# Wavelengths of the spectral lines of atomic hydrogen (Balmer-Rydberg formula)
card rydberg "Rydberg formula for the hydrogen spectrum" {
  collection historical
  field      optics
  source     "J. R. Rydberg, Recherches sur la constitution des spectres d'emission des elements chimiques, Kongl. Svenska Vetenskaps-Akademiens Handlingar 23, No. 11 (1890); J. J. Balmer, Ann. Phys. Chem. 25, 80 (1885)"

  background """
    A low-pressure hydrogen discharge tube is viewed with calibrated
    grating spectrographs covering the vacuum ultraviolet, the visible and
    the infrared out to 5 micrometres. The lines of atomic hydrogen fall into series; each
    series is labelled by a small whole number, and the lines within a
    series are labelled by a second, larger whole number counting upward
    from the series' longest-wavelength line. For a chosen pair of labels
    the spectrograph reports the vacuum wavelength of that line.
  """
  conditions "atomic (not molecular) hydrogen lines; vacuum wavelengths"
  conditions "fine structure and isotope shifts below the resolution"

  input  n          integer in 2 .. 7  "label of the line within its series"
  input  m_low      in {1, 2, 3}       "label of the series"
  output wl    [nm] resolution 0.01 tolerance abs 0.05 rel 0.1%  "vacuum wavelength of the line"

  constraint n > m_low  "a line's label must exceed its series label"

  param RH = 1.09678e7 [1/m]  "wavenumber scale of the hydrogen spectrum"
  param p  = 2                "level exponent"

  law wl = 1 / (RH * (1 / m_low^p - 1 / n^p))

  # mutation kind: exponent change
  # worlds: counterfactual / original output ratio over the evaluation set
  #   wl: min 0.86, median 1.7, max 2.7
  counterfactual "exponent change: level terms fall off with the cube of the label" {
    set p = 3
  }

  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}
