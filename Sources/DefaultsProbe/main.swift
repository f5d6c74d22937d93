print("DefaultsProbe: being built")
