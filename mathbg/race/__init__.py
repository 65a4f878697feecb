"""Race evaluation: counts, winning chances and cube advice for positions without contact.

- :mod:`mathbg.race.counts`: pip, Keith, Thorp, Kleinman, 8-9-12, Trice and Isight counts
  with their cube advice (pure vectorised functions over point-count arrays).
- :mod:`mathbg.race.sample`: random race positions (test and benchmark data).
"""
